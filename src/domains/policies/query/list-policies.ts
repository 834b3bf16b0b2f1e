import { Type } from "@sinclair/typebox";
import { loadPolicyRecords, PolicyRecord } from "../../../records/policy.js";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";

export const listPolicies = defineQuery({
  operation: "list_policies",
  sdkMethod: "getPolicies",
  summary: "Every policy of the organization, oldest first",
  body: Type.Object({ organizationId: Id() }),
  result: Type.Object({ policies: Type.Array(PolicyRecord) }),
  async execute({ organization, services }) {
    return { policies: await loadPolicyRecords(services.db, organization.id) };
  },
});
