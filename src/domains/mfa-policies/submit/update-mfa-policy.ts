import { Type } from "@sinclair/typebox";
import { Id, Name } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { mustExist } from "../../references.js";
import { checkMfaCondition, checkRequiredMethods, requireMfaPolicy } from "../mfa-policies.js";
import { RequiredMethodsParams } from "../methods.js";
import { MfaOrder, MFA_CONDITION_MAX } from "../order.js";

export const updateMfaPolicy = defineActivity({
  operation: "update_mfa_policy",
  type: "ACTIVITY_TYPE_UPDATE_MFA_POLICY",
  intentKey: "updateMfaPolicyIntent",
  resultKey: "updateMfaPolicyResult",
  result: Type.Object({ mfaPolicyId: Type.String() }),
  sdkMethod: "updateMfaPolicy",
  summary: "Change an MFA policy's name, condition, required methods, order or notes (the fields given)",
  resource: "MFA_POLICY",
  action: "UPDATE",
  policyParams: { user_id: "userId", mfa_policy_id: "mfaPolicyId" },
  parameters: Type.Object({
    userId: Id("The user whose MFA policy it is"),
    mfaPolicyId: Id(),
    mfaPolicyName: Type.Optional(Name()),
    condition: Type.Optional(Type.String({ maxLength: MFA_CONDITION_MAX })),
    requiredAuthenticationMethods: Type.Optional(RequiredMethodsParams),
    order: Type.Optional(MfaOrder),
    notes: Type.Optional(Type.String({ maxLength: 4096 })),
  }),
  async validate({ db, organization }, p) {
    await mustExist(requireMfaPolicy(db, organization.id, p.userId, p.mfaPolicyId));
    checkMfaCondition(p.condition);
    await checkRequiredMethods(db, organization, p.userId, p.requiredAuthenticationMethods);
  },
  async execute({ tx, organization, now }, p) {
    await requireMfaPolicy(tx, organization.id, p.userId, p.mfaPolicyId);
    const changes: [string, unknown][] = [];
    if (p.mfaPolicyName !== undefined) changes.push(["name", p.mfaPolicyName]);
    if (p.condition !== undefined) changes.push(["condition", p.condition]);
    if (p.requiredAuthenticationMethods !== undefined) changes.push(["required_methods", JSON.stringify(p.requiredAuthenticationMethods)]);
    if (p.order !== undefined) changes.push(["position", Number(p.order)]);
    if (p.notes !== undefined) changes.push(["notes", p.notes]);
    const sets = changes.map(([column], i) => `${column} = $${i + 3}${column === "required_methods" ? "::jsonb" : ""}`);
    await tx.query(`UPDATE mfa_policies SET ${[...sets, "updated_at = $2"].join(", ")} WHERE id = $1`, [
      p.mfaPolicyId,
      now,
      ...changes.map(([, value]) => value),
    ]);
    return { mfaPolicyId: p.mfaPolicyId };
  },
});
