import { Type } from "@sinclair/typebox";
import { loadUserRecords, UserRecord } from "../../../records/user.js";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";

export const listUsers = defineQuery({
  operation: "list_users",
  sdkMethod: "getUsers",
  summary: "Every user of the organization",
  body: Type.Object({ organizationId: Id() }),
  result: Type.Object({ users: Type.Array(UserRecord) }),
  async execute({ organization, services }) {
    return { users: await loadUserRecords(services.db, organization.id, services.clock()) };
  },
});
