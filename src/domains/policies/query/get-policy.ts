import { Type } from "@sinclair/typebox";
import { loadPolicyRecord, PolicyRecord } from "../../../records/policy.js";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";

export const getPolicy = defineQuery({
  operation: "get_policy",
  sdkMethod: "getPolicy",
  summary: "One policy",
  body: Type.Object({ organizationId: Id(), policyId: Id() }),
  result: Type.Object({ policy: PolicyRecord }),
  async execute({ organization, services }, { policyId }) {
    return { policy: await loadPolicyRecord(services.db, organization.id, policyId) };
  },
});
