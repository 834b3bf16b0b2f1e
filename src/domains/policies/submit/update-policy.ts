import { Type } from "@sinclair/typebox";
import { Id, Name } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { mustExist } from "../../references.js";
import { assertPolicyNameFree, checkPolicyExpression, Effect, requirePolicy, storedExpression } from "../policies.js";

export const updatePolicy = defineActivity({
  operation: "update_policy",
  type: "ACTIVITY_TYPE_UPDATE_POLICY_V2",
  intentKey: "updatePolicyIntentV2",
  resultKey: "updatePolicyResultV2",
  result: Type.Object({ policyId: Type.String() }),
  sdkMethod: "updatePolicy",
  summary: "Change a policy's name, effect, condition, consensus, time or notes (an empty string clears an expression)",
  resource: "POLICY",
  action: "UPDATE",
  parameters: Type.Object({
    policyId: Id(),
    policyName: Type.Optional(Name()),
    policyEffect: Type.Optional(Effect),
    policyCondition: Type.Optional(Type.String({ maxLength: 16384 })),
    policyConsensus: Type.Optional(Type.String({ maxLength: 16384 })),
    policyNotes: Type.Optional(Type.String({ maxLength: 4096 })),
    time: Type.Optional(Type.String({ maxLength: 4096 })),
  }),
  async validate({ db, organization }, p) {
    await mustExist(requirePolicy(db, organization.id, p.policyId));
    checkPolicyExpression(p.policyCondition, "condition", "policyCondition");
    checkPolicyExpression(p.policyConsensus, "consensus", "policyConsensus");
    checkPolicyExpression(p.time, "time", "time");
  },
  async execute({ tx, organization, now }, p) {
    await requirePolicy(tx, organization.id, p.policyId);
    const changes: [string, unknown][] = [];
    if (p.policyCondition !== undefined) changes.push(["condition", storedExpression(p.policyCondition)]);
    if (p.policyConsensus !== undefined) changes.push(["consensus", storedExpression(p.policyConsensus)]);
    if (p.time !== undefined) changes.push(["time", storedExpression(p.time)]);
    if (p.policyName !== undefined) {
      await assertPolicyNameFree(tx, organization.id, p.policyName, "policyName", p.policyId);
      changes.push(["name", p.policyName]);
    }
    if (p.policyEffect !== undefined) changes.push(["effect", p.policyEffect]);
    if (p.policyNotes !== undefined) changes.push(["notes", p.policyNotes]);
    for (const [column, value] of changes) await tx.query(`UPDATE policies SET ${column} = $2 WHERE id = $1`, [p.policyId, value]);
    await tx.query("UPDATE policies SET updated_at = $2 WHERE id = $1", [p.policyId, now]);
    return { policyId: p.policyId };
  },
});
