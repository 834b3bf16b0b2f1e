import { Type } from "@sinclair/typebox";
import { Id, IdList } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { mustExist } from "../../references.js";
import { requirePolicy } from "../policies.js";

export const deletePolicies = defineActivity({
  operation: "delete_policies",
  type: "ACTIVITY_TYPE_DELETE_POLICIES",
  intentKey: "deletePoliciesIntent",
  resultKey: "deletePoliciesResult",
  result: Type.Object({ policyIds: IdList() }),
  sdkMethod: "deletePolicies",
  summary: "Delete several policies at once",
  resource: "POLICY",
  action: "DELETE",
  parameters: Type.Object({ policyIds: Type.Array(Id(), { minItems: 1, maxItems: 100 }) }),
  async validate({ db, organization }, { policyIds }) {
    for (const [index, policyId] of policyIds.entries())
      await mustExist(requirePolicy(db, organization.id, policyId, `policyIds[${index}]`));
  },
  async execute({ tx, organization }, { policyIds }) {
    for (const [index, policyId] of policyIds.entries()) await requirePolicy(tx, organization.id, policyId, `policyIds[${index}]`);
    await tx.query("DELETE FROM policies WHERE id = ANY($1::text[]) AND organization_id = $2", [policyIds, organization.id]);
    return { policyIds };
  },
});
