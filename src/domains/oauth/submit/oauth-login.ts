import { Type } from "@sinclair/typebox";
import { Int64String } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { linkLoginKey, loginOfOidcToken, prepareOidcToken } from "../oidc-login.js";
import { checkLoginProfile, loginSession, sessionSeconds } from "../../sessions/sessions.js";

export const oauthLogin = defineActivity({
  operation: "oauth_login",
  type: "ACTIVITY_TYPE_OAUTH_LOGIN",
  intentKey: "oauthLoginIntent",
  resultKey: "oauthLoginResult",
  secretFields: { intent: ["oidcToken"] },
  result: Type.Object({ session: Type.String() }),
  sdkMethod: "oauthLogin",
  summary:
    "Log in with an OIDC token (Strongroom's own or a configured issuer's) whose nonce is sha256 of the session key: register that key and return a session JWT",
  resource: "AUTH",
  action: "CREATE",
  parameters: Type.Object({
    oidcToken: Type.String({ minLength: 1, maxLength: 16384 }),
    publicKey: Type.String({ minLength: 1 }),
    expirationSeconds: Type.Optional(Int64String()),
    invalidateExisting: Type.Optional(Type.Boolean()),
    sessionProfileId: Type.Optional(Type.String()),
  }),
  policyParams: { session_profile_id: "sessionProfileId" },
  parentMayInitiate: true,
  validate: ({ db, organization }, params) => checkLoginProfile(db, organization, params),
  enrolls: (params) => ({ factors: ["session"], sessionProfileId: params.sessionProfileId }),
  // The token is verified before the transaction: that may fetch the issuer's keys.
  prepare: (services, params) => prepareOidcToken(services, params.oidcToken),
  async execute(ctx, params, token) {
    sessionSeconds(params.expirationSeconds); // a bad lifetime is the caller's error, before any lookup or delivery
    const login = await loginOfOidcToken(ctx, token, params.publicKey, "publicKey");
    const session = await loginSession(ctx, ctx.organization.id, login.userId, params);
    await linkLoginKey(ctx.tx, login, { organizationId: ctx.organization.id, publicKey: params.publicKey });
    return session;
  },
});
