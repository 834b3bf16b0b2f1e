import { Type } from "@sinclair/typebox";
import { defineActivity } from "../../../operations/activity-definition.js";
import { insertPolicy, PolicyParams, checkPolicy } from "../policies.js";
import { IdList } from "../../../schema/common.js";

export const createPolicies = defineActivity({
  operation: "create_policies",
  type: "ACTIVITY_TYPE_CREATE_POLICIES",
  intentKey: "createPoliciesIntent",
  resultKey: "createPoliciesResult",
  result: Type.Object({ policyIds: IdList() }),
  sdkMethod: "createPolicies",
  summary: "Create several policies at once",
  resource: "POLICY",
  action: "CREATE",
  parameters: Type.Object({ policies: Type.Array(PolicyParams, { minItems: 1, maxItems: 100 }) }),
  async validate(_ctx, { policies }) {
    for (const [index, policy] of policies.entries()) checkPolicy(policy, `policies[${index}].`);
  },
  async execute({ tx, organization, now }, { policies }) {
    const policyIds: string[] = [];
    for (const [index, policy] of policies.entries())
      policyIds.push(await insertPolicy(tx, organization.id, policy, `policies[${index}].`, now));
    return { policyIds };
  },
});
