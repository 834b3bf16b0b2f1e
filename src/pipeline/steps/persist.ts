import type { AuditEvent } from "../../audit/record.js";
import { insertNewActivity } from "../../domains/activities/insert-new-activity.js";
import type { ActivityRow } from "../../records/activity.js";
import { recordEvaluations, setCompleted, setStatus, touchActivity, type StoredVote } from "../../domains/activities/votes.js";
import { emitActivityUpdateTo } from "../../domains/webhooks/outbox.js";
import { permissionDenied, policyDenied } from "../../errors.js";
import type { Decision } from "../../policy/decision.js";
import type { Queryable, Transaction } from "../../store/database.js";
import type { AfterCommitTask, HandlerOutcome } from "./execute.js";

/** Rolls back a transaction whose activity turned out to exist already (same fingerprint). */
export class AlreadySubmitted extends Error {}

/** A new activity's row in its final state: waiting for consensus, or what its execution came to. */
export function newActivityRow(
  base: Omit<ActivityRow, "status" | "result" | "failure" | "app_proofs">,
  decision: Decision,
  outcome: HandlerOutcome | undefined,
): ActivityRow {
  const row: ActivityRow = { ...base, status: "ACTIVITY_STATUS_FAILED", result: {}, failure: null, app_proofs: [] };
  if (decision.outcome === "consensus-needed") row.status = "ACTIVITY_STATUS_CONSENSUS_NEEDED";
  else if (decision.outcome === "authenticators-needed") row.status = "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED";
  else if (outcome?.status === "ACTIVITY_STATUS_COMPLETED")
    Object.assign(row, { status: outcome.status, result: outcome.result, app_proofs: outcome.appProofs });
  else if (outcome) row.failure = outcome.failure.toBody();
  return row;
}

/**
 * Step "persist" (and "record") for a new activity: the activity, its first vote, that vote's evaluations and its
 * audit event in ONE statement (the idempotency check is that insert: an activity with the same fingerprint wins,
 * and this one rolls back; with `releaseClaim`, the fingerprint's claim goes in it too), then its ACTIVITY_UPDATES outbox
 * rows. A denial rolls everything back (403). Answers how many deliveries it queued.
 *
 * With `commit` — the caller has nothing to write after it, and no subscriber to deliver to — an allowed activity's
 * insert leaves with the transaction's COMMIT, a round trip fewer; the transaction has then ended.
 */
export async function persistNewActivity(
  tx: Transaction,
  row: ActivityRow,
  first: StoredVote,
  decision: Decision,
  auditEvent: AuditEvent | undefined,
  deniedMessage: () => string,
  { releaseClaim, commit }: { releaseClaim?: boolean; commit?: boolean } = {},
): Promise<number> {
  const subscribers = await insertNewActivity(tx, row, first, decision.evaluations, auditEvent, {
    releaseClaim,
    commit: commit === true && decision.outcome !== "deny",
  });
  if (!subscribers) throw new AlreadySubmitted();
  if (decision.outcome === "deny")
    throw policyDenied(
      deniedMessage(),
      decision.evaluations.some((e) => e.outcome === "OUTCOME_DENY_EXPLICIT"),
    );
  return emitActivityUpdateTo(tx, subscribers, row, row.updated_at, [first]);
}

/**
 * Step "persist" for a vote on an activity waiting for consensus (the vote itself is already written): the
 * decision's evaluations, and the activity's new state — completed or failed by its execution, failed by a
 * denial, or still waiting (for consensus or authenticators) — with its outbox rows. Answers the activity's status
 * and the after-commit tasks of its execution.
 */
export async function persistVoteOutcome(
  tx: Queryable,
  activity: ActivityRow,
  vote: StoredVote,
  decision: Decision,
  outcome: HandlerOutcome | undefined,
  now: Date,
): Promise<{ status: string; tasks: AfterCommitTask[] }> {
  await recordEvaluations(tx, activity.id, activity.organization_id, vote.id, decision, now);
  if (decision.outcome === "deny") {
    await setStatus(tx, activity.id, "ACTIVITY_STATUS_FAILED", now, permissionDenied(decision.reason));
    return { status: "ACTIVITY_STATUS_FAILED", tasks: [] };
  }
  if (outcome?.status === "ACTIVITY_STATUS_FAILED") {
    await setStatus(tx, activity.id, "ACTIVITY_STATUS_FAILED", now, outcome.failure);
    return { status: outcome.status, tasks: [] };
  }
  if (outcome?.status === "ACTIVITY_STATUS_COMPLETED") {
    await setCompleted(tx, activity.id, outcome.result, outcome.appProofs, now);
    return { status: outcome.status, tasks: outcome.afterCommit };
  }
  // Still waiting: for consensus, or (again, or no longer) for its requester's authenticators.
  const waiting =
    decision.outcome === "authenticators-needed" ? "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED" : "ACTIVITY_STATUS_CONSENSUS_NEEDED";
  if (waiting !== activity.status) await setStatus(tx, activity.id, waiting, now);
  else await touchActivity(tx, activity.id, now);
  return { status: waiting, tasks: [] };
}
