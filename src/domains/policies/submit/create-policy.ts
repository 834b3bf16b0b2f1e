import { defineActivity } from "../../../pipeline/activity-definition.js";
import { checkPolicy, insertPolicy, PolicyParams } from "../policies.js";

export const createPolicy = defineActivity({
  operation: "create_policy",
  type: "ACTIVITY_TYPE_CREATE_POLICY_V3",
  intentKey: "createPolicyIntentV3",
  resultKey: "createPolicyResult",
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
