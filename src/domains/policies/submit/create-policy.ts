import { defineActivity } from "../../../operations/activity-definition.js";
import { insertPolicy, PolicyParams, checkPolicy } from "../policies.js";
import { Type } from "@sinclair/typebox";

export const createPolicy = defineActivity({
  operation: "create_policy",
  type: "ACTIVITY_TYPE_CREATE_POLICY_V3",
  intentKey: "createPolicyIntentV3",
  resultKey: "createPolicyResult",
  result: Type.Object({ policyId: Type.String() }),
  sdkMethod: "createPolicy",
  summary: "Create a policy: an effect, and condition / consensus / time expressions in the policy language",
  resource: "POLICY",
  action: "CREATE",
  parameters: PolicyParams,
  validate: async (_ctx, policy) => checkPolicy(policy, ""),
  async execute({ tx, organization, now }, params) {
    return { policyId: await insertPolicy(tx, organization.id, params, "", now) };
  },
});
