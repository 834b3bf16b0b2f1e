import { Type } from "@sinclair/typebox";
import { loadUserRecord, UserRecord } from "../../../records/user.js";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";

export const getUser = defineQuery({
  operation: "get_user",
  sdkMethod: "getUser",
  summary: "One user with credentials, tags and OAuth providers",
  body: Type.Object({ organizationId: Id(), userId: Id() }),
  result: Type.Object({ user: UserRecord }),
  async execute({ organization, services }, { userId }) {
    return { user: await loadUserRecord(services.db, organization.id, userId, services.clock()) };
  },
});
