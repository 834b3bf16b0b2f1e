import { Type, type Static } from "@sinclair/typebox";
import type { Decision, PolicyOutcome } from "../../policy/decision.js";
import { formatScaled } from "../../policy/velocity/decimal.js";
import type { VelocityLedger } from "../../policy/velocity/ledger.js";
import { StringEnum } from "../../schema/common.js";
import type { Queryable } from "../../store/database.js";
import { draftPolicyId } from "./drafted-policies.js";

export const DryRunOutcome = StringEnum(["ALLOW", "DENY", "CONSENSUS_NEEDED", "AUTHENTICATORS_NEEDED"]);

export const DryRunAnswer = Type.Object({
  outcome: DryRunOutcome,
  reason: Type.String({ description: "Why, in words: which policy allowed or denied it, or what it still waits for" }),
  byRootQuorum: Type.Optional(Type.Boolean({ description: "With ALLOW: the root quorum's approvals sufficed" })),
  activityType: Type.String(),
  policyEvaluations: Type.Array(
    Type.Object({
      policyId: Type.String({ description: "The stored policy's id, or draft:<index> for a drafted one" }),
      draftIndex: Type.Optional(Type.Integer({ description: "The drafted policy's index in `policies`" })),
      policyName: Type.String(),
      outcome: Type.String({ description: "OUTCOME_ALLOW, OUTCOME_DENY_EXPLICIT, OUTCOME_REQUIRES_CONSENSUS, ..." }),
    }),
  ),
  controls: Type.Array(
    Type.Object({
      velocityControlId: Type.String(),
      identifier: Type.String(),
      current: Type.String({ description: "The aggregate so far in this activity's bucket (decimal)" }),
      adds: Type.String({ description: "What this activity would add once it executes (decimal)" }),
      threshold: Type.String(),
      operator: Type.String(),
      holds: Type.Boolean({ description: "controls.<identifier>: whether current + adds satisfies the comparison" }),
    }),
    { description: "Every velocity control of the deciding organization, as this activity would see it" },
  ),
});
export type DryRunAnswer = Static<typeof DryRunAnswer>;

const OUTCOMES = {
  allow: "ALLOW",
  deny: "DENY",
  "consensus-needed": "CONSENSUS_NEEDED",
  "authenticators-needed": "AUTHENTICATORS_NEEDED",
} as const;

/** The decision as the dry run answers it: the outcome in words, and each policy's evaluation with its name. */
export async function dryRunAnswer(
  db: Queryable,
  activityType: string,
  decision: Decision,
  drafts: readonly { policyName: string }[] | undefined,
  velocity?: VelocityLedger,
): Promise<DryRunAnswer> {
  const names = drafts
    ? new Map(drafts.map((d, index) => [draftPolicyId(index), d.policyName]))
    : await storedPolicyNames(
        db,
        decision.evaluations.map((e) => e.policyId),
      );
  const draftIndexes = new Map(drafts?.map((_, index) => [draftPolicyId(index), index]));
  const policyEvaluations = decision.evaluations.map((e) => ({
    policyId: e.policyId,
    ...(draftIndexes.has(e.policyId) ? { draftIndex: draftIndexes.get(e.policyId) } : {}),
    policyName: names.get(e.policyId) ?? "",
    outcome: e.outcome,
  }));
  const named = (outcome: string) =>
    decision.evaluations
      .filter((e) => e.outcome === outcome)
      .map((e: PolicyOutcome) => `policy ${JSON.stringify(names.get(e.policyId) ?? "")} (${e.policyId})`)
      .join(", ");
  return {
    outcome: OUTCOMES[decision.outcome],
    reason: reasonOf(decision, named),
    ...(decision.outcome === "allow" ? { byRootQuorum: decision.byRootQuorum === true } : {}),
    activityType,
    policyEvaluations,
    controls: velocity
      ? [...(await velocity.read(db, "all", false)).values()].map((r) => ({
          velocityControlId: r.controlId,
          identifier: r.identifier,
          current: formatScaled(r.current),
          adds: formatScaled(r.adds),
          threshold: formatScaled(r.threshold),
          operator: r.operator,
          holds: r.holds,
        }))
      : [],
  };
}

function reasonOf(decision: Decision, named: (outcome: string) => string): string {
  switch (decision.outcome) {
    case "allow": {
      if (decision.byRootQuorum) return "allowed: the root quorum's approvals reach its threshold";
      const allowing = named("OUTCOME_ALLOW");
      return allowing
        ? `allowed by ${allowing}`
        : "allowed by the implicit permission: a user may manage their own credentials and profile";
    }
    case "deny": {
      const denying = named("OUTCOME_DENY_EXPLICIT");
      return denying ? `denied by ${denying} (explicit deny)` : decision.reason;
    }
    case "consensus-needed": {
      const waiting = named("OUTCOME_REQUIRES_CONSENSUS");
      return waiting
        ? `needs consensus: ${waiting} would allow it once its consensus holds (more approvals)`
        : "needs consensus: the root quorum's approvals so far do not reach its threshold";
    }
    case "authenticators-needed":
      return "needs authenticators: the policies do not deny it, but the requester's MFA policy asks for more authenticators before it is decided";
  }
}

async function storedPolicyNames(db: Queryable, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<{ id: string; name: string }>("SELECT id, name FROM policies WHERE id = ANY($1::text[])", [ids]);
  return new Map(rows.map((r) => [r.id, r.name]));
}
