import { Type } from "@sinclair/typebox";
import { Int64String } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { checkLoginProfile, checkLoginRequest, loginSession, sessionUser } from "../sessions.js";

export const stampLogin = defineActivity({
  operation: "stamp_login",
  type: "ACTIVITY_TYPE_STAMP_LOGIN",
  intentKey: "stampLoginIntent",
  resultKey: "stampLoginResult",
  result: Type.Object({ session: Type.String() }),
  sdkMethod: "stampLogin",
  summary:
    "Log in with the request's own stamp: register the client's session public key as an expiring login key and return a session JWT",
  resource: "AUTH",
  action: "CREATE",
  subOrganizationCredentials: true,
  attestedStamp: true,
  parameters: Type.Object({
    publicKey: Type.String({ minLength: 1 }),
    expirationSeconds: Type.Optional(Int64String()),
    invalidateExisting: Type.Optional(Type.Boolean()),
    sessionProfileId: Type.Optional(Type.String()),
  }),
  policyParams: { session_profile_id: "sessionProfileId" },
  selfServiceUserId: (_params, requesterUserId) => requesterUserId,
  enrolls: (params, requesterUserId) => ({ userId: requesterUserId, factors: ["session"], sessionProfileId: params.sessionProfileId }),
  async validate({ db, organization }, params) {
    checkLoginRequest(params);
    await checkLoginProfile(db, organization, params);
  },
  async execute(ctx, params) {
    const user = await sessionUser(ctx.tx, ctx.organization.id, ctx.requesterUserId);
    return loginSession(ctx, ctx.organization.id, user.id, params);
  },
});
