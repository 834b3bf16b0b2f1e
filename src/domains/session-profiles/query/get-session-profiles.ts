import { Type } from "@sinclair/typebox";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";
import { listSessionProfiles, SessionProfileRecord, sessionProfileRecord } from "../session-profiles.js";

export const getSessionProfiles = defineQuery({
  operation: "get_session_profiles",
  sdkMethod: "getSessionProfiles",
  summary: "The session profiles of the organization, then those of its parent",
  body: Type.Object({ organizationId: Id() }),
  result: Type.Object({ sessionProfiles: Type.Array(SessionProfileRecord) }),
  async execute({ organization, services }) {
    return { sessionProfiles: (await listSessionProfiles(services.db, organization)).map(sessionProfileRecord) };
  },
});
