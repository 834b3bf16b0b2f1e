import { p256 } from "@noble/curves/nist.js";
import { Type } from "@sinclair/typebox";
import { credentialBundle } from "../../crypto/bundles.js";
import { Int64String, Name } from "../../schema/common.js";
import { defineActivity } from "../definition.js";
import { addApiKeys } from "../shared/credentials.js";
import { userOfOidcToken } from "../shared/oidc-login.js";
import { invalidateSessionKeys, sessionSeconds } from "../shared/sessions.js";
import { requireTargetKey } from "../shared/target-key.js";

const OAUTH_KEY = "CREDENTIAL_TYPE_OAUTH_KEY_P256";

export const oauth = defineActivity({
  operation: "oauth",
  type: "ACTIVITY_TYPE_OAUTH",
  intentKey: "oauthIntent",
  resultKey: "oauthResult",
  sdkMethod: "oauth",
  summary: "Legacy OAuth login: for a verified OIDC token whose nonce is sha256 of targetPublicKey, a fresh expiring API key returned as a credential bundle",
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
  async execute(ctx, params) {
    const { tx, organization, now } = ctx;
    const target = requireTargetKey(params.targetPublicKey);
    const seconds = sessionSeconds(params.expirationSeconds);
    const userId = await userOfOidcToken(ctx, params.oidcToken, params.targetPublicKey, "targetPublicKey");
    if (params.invalidateExisting) await invalidateSessionKeys(tx, userId, [OAUTH_KEY]);
    const key = p256.utils.randomSecretKey();
    const [apiKeyId] = await addApiKeys(
      tx,
      { organizationId: organization.id, userId, now },
      [
        {
          apiKeyName: params.apiKeyName ?? `Oauth - ${now.toISOString()}`,
          publicKey: Buffer.from(p256.getPublicKey(key, true)).toString("hex"),
          curveType: "API_KEY_CURVE_P256",
          expirationSeconds: String(seconds),
          credentialType: OAUTH_KEY,
        },
      ],
      "oauth",
    );
    return { userId, apiKeyId, credentialBundle: await credentialBundle(key, target) };
  },
});
