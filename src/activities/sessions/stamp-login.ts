import { Type } from "@sinclair/typebox";
import { issueSessionJwt } from "../../auth/session-jwt.js";
import { Int64String } from "../../schema/common.js";
import { defineActivity } from "../definition.js";
import { addApiKeys } from "../shared/credentials.js";
import { invalidateSessionKeys, sessionSeconds, sessionUser } from "../shared/sessions.js";

export const stampLogin = defineActivity({
  operation: "stamp_login",
  type: "ACTIVITY_TYPE_STAMP_LOGIN",
  intentKey: "stampLoginIntent",
  resultKey: "stampLoginResult",
  sdkMethod: "stampLogin",
  summary: "Log in with the request's own stamp: register the client's session public key as an expiring login key and return a session JWT",
  resource: "AUTH",
  action: "CREATE",
  parameters: Type.Object({
    publicKey: Type.String({ minLength: 1 }),
    expirationSeconds: Type.Optional(Int64String()),
    invalidateExisting: Type.Optional(Type.Boolean()),
    sessionProfileId: Type.Optional(Type.String()),
  }),
  selfServiceUserId: (_params, requesterUserId) => requesterUserId,
  async execute({ tx, organization, now, requesterUserId, services }, params) {
    const seconds = sessionSeconds(params.expirationSeconds);
    const user = await sessionUser(tx, organization.id, requesterUserId);
    if (params.invalidateExisting) await invalidateSessionKeys(tx, user.id, ["CREDENTIAL_TYPE_LOGIN"]);
    await addApiKeys(
      tx,
      { organizationId: organization.id, userId: user.id, now },
      [{ apiKeyName: `Login - ${now.toISOString()}`, publicKey: params.publicKey, curveType: "API_KEY_CURVE_P256", expirationSeconds: String(seconds), credentialType: "CREDENTIAL_TYPE_LOGIN" }],
      "publicKey",
    );
    const session = issueSessionJwt(services.signer, {
      session_type: "SESSION_TYPE_READ_WRITE",
      user_id: user.id,
      organization_id: organization.id,
      public_key: params.publicKey.toLowerCase(),
      exp: Math.floor(now.getTime() / 1000) + seconds,
      ...(params.sessionProfileId ? { session_profile_id: params.sessionProfileId } : {}),
    });
    return { session };
  },
});
