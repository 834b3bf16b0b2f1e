import { Type } from "@sinclair/typebox";
import { Id } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { mustExist } from "../../references.js";
import { requirePolicy } from "../policies.js";

export const deletePolicy = defineActivity({
  operation: "delete_policy",
  type: "ACTIVITY_TYPE_DELETE_POLICY",
  intentKey: "deletePolicyIntent",
  resultKey: "deletePolicyResult",
  result: Type.Object({ policyId: Type.String() }),
  sdkMethod: "deletePolicy",
  summary: "Delete a policy",
  resource: "POLICY",
  action: "DELETE",
  parameters: Type.Object({ policyId: Id() }),
  async validate({ db, organization }, { policyId }) {
    await mustExist(requirePolicy(db, organization.id, policyId));
  },
  async execute({ tx, organization }, { policyId }) {
    await requirePolicy(tx, organization.id, policyId);
    await tx.query("DELETE FROM policies WHERE id = $1", [policyId]);
    return { policyId };
  },
});
