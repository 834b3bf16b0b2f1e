import { Type } from "@sinclair/typebox";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";
import { requireSessionProfile, SessionProfileRecord, sessionProfileRecord } from "../session-profiles.js";

export const getSessionProfile = defineQuery({
  operation: "get_session_profile",
  sdkMethod: "getSessionProfile",
  summary: "One session profile of the organization or its parent",
  body: Type.Object({ organizationId: Id(), sessionProfileId: Id() }),
  result: Type.Object({ sessionProfile: SessionProfileRecord }),
  async execute({ organization, services }, { sessionProfileId }) {
    return { sessionProfile: sessionProfileRecord(await requireSessionProfile(services.db, organization, sessionProfileId)) };
  },
});
