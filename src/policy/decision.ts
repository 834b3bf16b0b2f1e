import type { ActivityDefinition } from "../operations/activity-definition.js";
import { rootQuorum, type OrganizationRow } from "../records/organization.js";
import type { Queryable } from "../store/database.js";
import {
  Budget,
  compilePolicyExpression,
  evaluateExpression,
  isPolicySyntaxError,
  PolicyBudgetExceededError,
  type Expr,
  type PolicyField,
  type Value,
} from "./language/index.js";
import { conditionKeywordSets } from "./keywords/index.js";
import type { ParsedTransactions } from "../crypto/signing/parsed-transactions.js";
import type { VelocityLedger } from "./velocity/ledger.js";
import { namedControls } from "./velocity/names.js";

/** One approval that counts: who cast it and with which credential. */
export interface Approval {
  userId: string;
  /** Known for the vote being cast now (from its credential); looked up otherwise. */
  isRoot?: boolean;
  /** `authenticationType` is how the stamp authenticated (src/auth/authentication.ts); MFA reads it. */
  credential: {
    id: string;
    type: string;
    publicKey: string;
    credentialId?: string;
    authenticationType?: string;
    sessionProfileId?: string;
    /** When the credential was registered (ISO 8601): MFA takes no proof from one newer than the activity. */
    createdAt?: string;
  };
}

export interface PolicyOutcome {
  policyId: string;
  outcome: string;
}

export type Decision =
  | { outcome: "allow"; evaluations: PolicyOutcome[]; /** the root quorum's approvals sufficed */ byRootQuorum?: true }
  | { outcome: "consensus-needed"; evaluations: PolicyOutcome[] }
  /** The policies would allow or wait for consensus, but the requester's MFA is not satisfied yet (pipeline's decide step). */
  | { outcome: "authenticators-needed"; evaluations: PolicyOutcome[] }
  | { outcome: "deny"; reason: string; evaluations: PolicyOutcome[] };

export interface DecisionInput {
  definition: ActivityDefinition;
  params: Record<string, unknown>;
  organization: OrganizationRow;
  /** The approvals that count (not expired), the submitter's first. */
  approvals: Approval[];
  now: Date;
  /**
   * A drafted policy set that replaces the organization's stored policies for this decision (a dry run, whose
   * expressions were checked as create_policy checks them); left out, the stored policies decide.
   */
  policies?: readonly DecisionPolicy[];
  /** The request's parse of the transaction it signs, made before its transaction (see ParsedTransactions). */
  parsedTransactions?: ParsedTransactions;
  /**
   * The activity's velocity ledger, which `controls.<identifier>` reads; `lock` in the activity's transaction
   * (the decision that counts), so the buckets read stay locked until it commits (src/policy/velocity/ledger.ts).
   */
  velocity?: { ledger: VelocityLedger; lock: boolean };
}

/** A policy as the decision reads it. */
export interface DecisionPolicy {
  id: string;
  effect: string;
  condition: string | null;
  consensus: string | null;
  time: string | null;
}

/** Compiled expressions by source, shared by every organization: bounded by their total length, not only their number. */
const compiled = new Map<string, Expr>();
let compiledCharacters = 0;
const COMPILED_CHARACTERS = 4_000_000;
function expression(source: string, field: PolicyField): Expr {
  const key = `${field}\u0000${source}`;
  let expr = compiled.get(key);
  if (!expr) {
    expr = compilePolicyExpression(source, field);
    if (compiled.size >= 10_000 || compiledCharacters + key.length > COMPILED_CHARACTERS) {
      compiled.clear();
      compiledCharacters = 0;
    }
    compiled.set(key, expr);
    compiledCharacters += key.length;
  }
  return expr;
}

/**
 * true/false, "error" when evaluation failed (that policy's outcome is then OUTCOME_ERROR), or "over-limits"
 * (also OUTCOME_ERROR) when it ran out of its evaluation budget or of the decision's, or when a stored
 * expression no longer passes the language's limits (one written before the nesting limit existed).
 */
function holds(
  source: string | null,
  field: PolicyField,
  keywords: Record<string, Value>,
  now: number,
  decision: Budget,
): boolean | "error" | "over-limits" {
  if (source === null || source.trim() === "") return true;
  try {
    return evaluateExpression(expression(source, field), { keywords, now, budget: decision.child() });
  } catch (error) {
    return error instanceof PolicyBudgetExceededError || isPolicySyntaxError(error) ? "over-limits" : "error";
  }
}

/**
 * A condition over one activity's targets (the secrets of an export): an allow applies when it holds for every
 * target; a deny applies when it holds for any, and is evaluated on every target, so a target whose evaluation
 * fails cannot shield another that it holds for. With one target, it is `holds`.
 */
function conditionHolds(
  source: string | null,
  effect: string,
  targets: Record<string, Value>[],
  now: number,
  decision: Budget,
): boolean | "error" | "over-limits" {
  const results = targets.map((keywords) => holds(source, "condition", keywords, now, decision));
  if (effect !== "EFFECT_DENY") return results.find((result) => result !== true) ?? true;
  if (results.includes(true)) return true;
  if (results.includes("over-limits")) return "over-limits";
  return results.includes("error") ? "error" : false;
}

async function approverValues(
  tx: Queryable,
  organizationId: string,
  approvals: Approval[],
): Promise<{ approvers: Value[]; credentials: Value[] }> {
  const ids = [...new Set(approvals.map((a) => a.userId))];
  // A name or email the user set on themselves without proof is not shown: it would let anyone pass a
  // consensus keyed on a value they merely claim (see docs/api.md, "Profile updates").
  const users = await tx.query<{ id: string; name: string | null; email: string | null; tags: string[] | null }>(
    `SELECT u.id, CASE WHEN u.name_self_asserted THEN NULL ELSE u.name END AS name, CASE WHEN u.email_self_asserted THEN NULL ELSE u.email END AS email,
            array_remove(array_agg(a.tag_id ORDER BY a.tag_id), NULL) AS tags
       FROM users u LEFT JOIN user_tag_assignments a ON a.user_id = u.id
      WHERE u.organization_id = $1 AND u.id = ANY($2::text[]) GROUP BY u.id`,
    [organizationId, ids],
  );
  const byId = new Map(users.map((u) => [u.id, u]));
  return {
    approvers: ids.flatMap((id) => {
      const user = byId.get(id);
      return user ? [{ id: user.id, tags: user.tags ?? [], email: user.email ?? "", alias: user.name ?? "" }] : [];
    }),
    credentials: approvals.map((a) => ({
      id: a.credential.id,
      user_id: a.userId,
      type: a.credential.type,
      credential_id: a.credential.credentialId ?? "",
      public_key: a.credential.publicKey,
    })),
  };
}

/**
 * The `controls` keyword: each velocity control the policies name, true when its aggregate with this activity
 * satisfies its comparison. `missing`: the policies naming a control the organization does not have (deleted, or
 * never created): their outcome is OUTCOME_ERROR, and a deny among them denies, like any deny that cannot be
 * evaluated.
 */
async function controlValues(
  tx: Queryable,
  policies: readonly DecisionPolicy[],
  velocity: DecisionInput["velocity"],
): Promise<{ controls?: Record<string, Value>; missing: Set<string> }> {
  const missing = new Set<string>();
  let wanted: Set<string> | "all" = new Set();
  for (const policy of policies) {
    if (!policy.condition?.includes("controls")) continue;
    let names: Set<string> | "all";
    try {
      names = namedControls(expression(policy.condition, "condition"));
    } catch {
      continue; // an expression that no longer compiles is the evaluation's error (holds)
    }
    if (names === "all") wanted = "all";
    else {
      for (const name of names) if (!velocity?.ledger.has(name)) missing.add(policy.id);
      if (wanted !== "all") for (const name of names) wanted.add(name);
    }
  }
  if (!velocity || (wanted !== "all" && wanted.size === 0)) return { missing };
  const readings = await velocity.ledger.read(tx, wanted, velocity.lock);
  return { controls: Object.fromEntries([...readings].map(([identifier, reading]) => [identifier, reading.holds])), missing };
}

async function countRootApprovals(tx: Queryable, organization: OrganizationRow, approvals: Approval[]): Promise<number> {
  const { userIds } = await rootQuorum(tx, organization);
  return new Set(approvals.filter((a) => userIds.includes(a.userId)).map((a) => a.userId)).size;
}

/**
 * The decision procedure: a root quorum acting → allow; else an applicable deny policy → explicit deny;
 * else an applicable allow policy → allow; else the implicit permissions (own credentials); else an
 * allow policy or a root quorum still waiting for approvals → consensus needed; else implicit deny.
 * A policy applies when its time window is open and its condition and consensus hold. All the expressions
 * of one decision share one budget (budget.ts); a deny policy the budget cut off denies (it fails closed).
 */
export async function decide(tx: Queryable, input: DecisionInput): Promise<Decision> {
  const { definition, organization, approvals } = input;
  // The common case — one root user acting where one suffices — needs no lookup.
  const rootApprovals = approvals.every((a) => a.isRoot !== undefined)
    ? new Set(approvals.filter((a) => a.isRoot).map((a) => a.userId)).size
    : await countRootApprovals(tx, organization, approvals);
  if (rootApprovals >= organization.root_quorum_threshold) return { outcome: "allow", evaluations: [], byRootQuorum: true };
  if (definition.rootQuorumOnly) {
    return rootApprovals > 0
      ? { outcome: "consensus-needed", evaluations: [] }
      : {
          outcome: "deny",
          reason: `${definition.type} can only be performed by the root quorum of organization ${organization.id}`,
          evaluations: [],
        };
  }

  const policies =
    input.policies ??
    (await tx.query<DecisionPolicy>("SELECT id, effect, condition, consensus, time FROM policies WHERE organization_id = $1 ORDER BY seq", [
      organization.id,
    ]));
  const evaluations: PolicyOutcome[] = [];
  /** Deny policies cut off by the budget or the limits: nobody knows whether they apply, so they deny (fail closed). */
  const unevaluatedDenies: string[] = [];
  if (policies.length > 0) {
    const now = input.now.getTime();
    const keywordSets = await conditionKeywordSets(tx, organization.id, definition, input.params, input.parsedTransactions);
    const { controls, missing } = await controlValues(tx, policies, input.velocity);
    const conditions = controls ? keywordSets.map((keywords) => ({ ...keywords, controls })) : keywordSets;
    const consensus = await approverValues(tx, organization.id, approvals);
    // One budget for all the policies of the decision; each expression also has its own (budget.ts).
    const budget = Budget.forDecision();
    for (const policy of policies) {
      const results = [
        holds(policy.time, "time", {}, now, budget),
        conditionHolds(policy.condition, policy.effect, conditions, now, budget),
        holds(policy.consensus, "consensus", consensus, now, budget),
      ];
      const [time, applies, agreed] = results;
      let outcome: string;
      if (results.includes("over-limits") || (missing.has(policy.id) && time === true)) {
        outcome = "OUTCOME_ERROR";
        if (policy.effect === "EFFECT_DENY") unevaluatedDenies.push(policy.id);
      } else if (time === "error" || applies === "error" || agreed === "error") outcome = "OUTCOME_ERROR";
      else if (!time) outcome = "OUTCOME_TIME_INACTIVE";
      else if (!applies) outcome = "OUTCOME_DENY_IMPLICIT";
      else if (agreed) outcome = policy.effect === "EFFECT_DENY" ? "OUTCOME_DENY_EXPLICIT" : "OUTCOME_ALLOW";
      else outcome = policy.effect === "EFFECT_DENY" ? "OUTCOME_DENY_IMPLICIT" : "OUTCOME_REQUIRES_CONSENSUS";
      evaluations.push({ policyId: policy.id, outcome });
    }
  }
  const denying = evaluations.filter((e) => e.outcome === "OUTCOME_DENY_EXPLICIT").map((e) => e.policyId);
  if (denying.length > 0) {
    return {
      outcome: "deny",
      reason: `${definition.type} is denied by policy ${denying.join(", ")} of organization ${organization.id} (explicit deny)`,
      evaluations,
    };
  }
  if (unevaluatedDenies.length > 0) {
    return {
      outcome: "deny",
      reason: `${definition.type} is denied: deny policy ${unevaluatedDenies.join(", ")} of organization ${organization.id} could not be evaluated within the evaluation budget or the language's limits, or names a velocity control the organization does not have, and a deny policy that cannot be evaluated denies`,
      evaluations,
    };
  }
  if (evaluations.some((e) => e.outcome === "OUTCOME_ALLOW")) return { outcome: "allow", evaluations };
  const submitter = approvals[0]?.userId;
  const selfTarget = submitter === undefined ? undefined : definition.selfServiceUserId?.(input.params as never, submitter);
  if (selfTarget !== undefined && selfTarget === submitter) return { outcome: "allow", evaluations };
  if (rootApprovals > 0 || evaluations.some((e) => e.outcome === "OUTCOME_REQUIRES_CONSENSUS"))
    return { outcome: "consensus-needed", evaluations };
  return {
    outcome: "deny",
    reason: `${definition.type} is not authorized in organization ${organization.id}: no policy allows it for these approvers (implicit deny)`,
    evaluations,
  };
}
