import { Type } from "@sinclair/typebox";
import { randomUUID } from "node:crypto";
import { Id, Name } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { mustExist } from "../../references.js";
import { requireUser } from "../../../records/user.js";
import { assertRoomForMfaPolicy, checkMfaCondition, checkRequiredMethods } from "../mfa-policies.js";
import { RequiredMethodsParams } from "../methods.js";
import { MfaOrder, MFA_CONDITION_MAX } from "../order.js";

export const createMfaPolicy = defineActivity({
  operation: "create_mfa_policy",
  type: "ACTIVITY_TYPE_CREATE_MFA_POLICY",
  intentKey: "createMfaPolicyIntent",
  resultKey: "createMfaPolicyResult",
  result: Type.Object({ mfaPolicyId: Type.String() }),
  sdkMethod: "createMfaPolicy",
  summary: "Require a user to prove more authentication methods (passkey, API key, session) for the activities a condition matches",
  resource: "MFA_POLICY",
  action: "CREATE",
  policyParams: { user_id: "userId" },
  // Adding MFA to oneself only adds requirements (and a user who has MFA policies must satisfy all of them to add one).
  selfServiceUserId: (p) => p.userId,
  parameters: Type.Object({
    userId: Id("The user the MFA policy applies to"),
    mfaPolicyName: Name("Human-readable name for the MFA policy"),
    condition: Type.String({ maxLength: MFA_CONDITION_MAX, description: "When the policy applies (policy language)" }),
    requiredAuthenticationMethods: RequiredMethodsParams,
    order: MfaOrder,
    notes: Type.Optional(Type.String({ maxLength: 4096 })),
  }),
  async validate({ db, organization }, p) {
    await mustExist(requireUser(db, organization.id, p.userId));
    checkMfaCondition(p.condition);
    await checkRequiredMethods(db, organization, p.userId, p.requiredAuthenticationMethods);
  },
  async execute({ tx, organization, now }, p) {
    await requireUser(tx, organization.id, p.userId);
    await assertRoomForMfaPolicy(tx, organization.id, p.userId);
    const mfaPolicyId = randomUUID();
    await tx.query(
      `INSERT INTO mfa_policies (id, organization_id, user_id, name, condition, required_methods, position, notes, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $9)`,
      [
        mfaPolicyId,
        organization.id,
        p.userId,
        p.mfaPolicyName,
        p.condition,
        JSON.stringify(p.requiredAuthenticationMethods),
        Number(p.order),
        p.notes ?? "",
        now,
      ],
    );
    return { mfaPolicyId };
  },
});
