import { Type } from "@sinclair/typebox";
import { issueSessionJwt } from "../../../auth/session-jwt.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { sessionUser } from "../sessions.js";

/** Read-only sessions last one hour. */
const READ_ONLY_SECONDS = 3600;

export const createReadOnlySession = defineActivity({
  operation: "create_read_only_session",
  type: "ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION",
  intentKey: "createReadOnlySessionIntent",
  resultKey: "createReadOnlySessionResult",
  secretFields: { result: ["session"] },
  result: Type.Object({
    organizationId: Type.String(),
    organizationName: Type.String(),
    userId: Type.String(),
    username: Type.String(),
    session: Type.String(),
    sessionExpiry: Type.String(),
  }),
  sdkMethod: "createReadOnlySession",
  summary:
    "A session token for the requester, valid for one hour, that queries accept in the X-Session header; it can never submit an activity",
  resource: "AUTH",
  action: "CREATE",
  subOrganizationCredentials: true,
  parameters: Type.Object({}),
  selfServiceUserId: (_params, requesterUserId) => requesterUserId,
  async execute({ tx, organization, now, requesterUserId, services }) {
    const user = await sessionUser(tx, organization.id, requesterUserId);
    const sessionExpiry = Math.floor(now.getTime() / 1000) + READ_ONLY_SECONDS;
    const session = issueSessionJwt(services.signer, {
      session_type: "SESSION_TYPE_READ_ONLY",
      user_id: user.id,
      organization_id: organization.id,
      public_key: "",
      exp: sessionExpiry,
    });
    return {
      organizationId: organization.id,
      organizationName: organization.name,
      userId: user.id,
      username: user.name,
      session,
      sessionExpiry: String(sessionExpiry),
    };
  },
});
