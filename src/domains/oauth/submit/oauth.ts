import { Type } from "@sinclair/typebox";
import { Int64String, Name } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { issueCredential } from "../../sessions/issue-credential.js";
import { linkLoginKey, loginOfOidcToken, prepareOidcToken } from "../oidc-login.js";
import { sessionSeconds } from "../../sessions/sessions.js";
import { requireTargetKey } from "../../../crypto/target-key.js";

export const oauth = defineActivity({
  operation: "oauth",
  type: "ACTIVITY_TYPE_OAUTH",
  intentKey: "oauthIntent",
  resultKey: "oauthResult",
  secretFields: { intent: ["oidcToken"] },
  result: Type.Object({ userId: Type.String(), apiKeyId: Type.String(), credentialBundle: Type.String() }),
  sdkMethod: "oauth",
  summary:
    "Legacy OAuth login: for a verified OIDC token whose nonce is sha256 of targetPublicKey, a fresh expiring API key returned as a credential bundle",
  resource: "AUTH",
  action: "CREATE",
  parameters: Type.Object({
    oidcToken: Type.String({ minLength: 1, maxLength: 16384 }),
    targetPublicKey: Type.String(),
    apiKeyName: Type.Optional(Name()),
    expirationSeconds: Type.Optional(Int64String()),
    invalidateExisting: Type.Optional(Type.Boolean()),
  }),
  parentMayInitiate: true,
  enrolls: () => ({ factors: ["session"] }),
  // The token is verified before the transaction: that may fetch the issuer's keys.
  prepare: (services, params) => prepareOidcToken(services, params.oidcToken),
  async execute(ctx, params, token) {
    // Malformed input is refused (400) before the user is looked up (issueCredential checks it again).
    requireTargetKey(params.targetPublicKey);
    sessionSeconds(params.expirationSeconds);
    const login = await loginOfOidcToken(ctx, token, params.targetPublicKey, "targetPublicKey");
    const { userId } = login;
    const { apiKeyId, credentialBundle } = await issueCredential(ctx, {
      userId,
      targetPublicKey: params.targetPublicKey,
      credentialType: "CREDENTIAL_TYPE_OAUTH_KEY_P256",
      apiKeyName: params.apiKeyName ?? `Oauth - ${ctx.now.toISOString()}`,
      expirationSeconds: params.expirationSeconds,
      invalidateExisting: params.invalidateExisting,
    });
    await linkLoginKey(ctx.tx, login, { organizationId: ctx.organization.id, publicKey: params.targetPublicKey });
    return { userId, apiKeyId, credentialBundle };
  },
});
