import { Type } from "@sinclair/typebox";
import { Id } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { mustExist } from "../../references.js";
import { requireMfaPolicy } from "../mfa-policies.js";

export const deleteMfaPolicy = defineActivity({
  operation: "delete_mfa_policy",
  type: "ACTIVITY_TYPE_DELETE_MFA_POLICY",
  intentKey: "deleteMfaPolicyIntent",
  resultKey: "deleteMfaPolicyResult",
  result: Type.Object({ mfaPolicyId: Type.String() }),
  sdkMethod: "deleteMfaPolicy",
  summary: "Delete an MFA policy (its user must satisfy all their MFA policies to delete their own)",
  resource: "MFA_POLICY",
  action: "DELETE",
  policyParams: { user_id: "userId", mfa_policy_id: "mfaPolicyId" },
  parameters: Type.Object({ userId: Id("The user whose MFA policy it is"), mfaPolicyId: Id() }),
  async validate({ db, organization }, p) {
    await mustExist(requireMfaPolicy(db, organization.id, p.userId, p.mfaPolicyId));
  },
  async execute({ tx, organization }, p) {
    await requireMfaPolicy(tx, organization.id, p.userId, p.mfaPolicyId);
    await tx.query("DELETE FROM mfa_policies WHERE id = $1", [p.mfaPolicyId]);
    return { mfaPolicyId: p.mfaPolicyId };
  },
});
