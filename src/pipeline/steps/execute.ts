import { appProofsFor, type ProofContext } from "../../domains/activities/app-proofs.js";
import { ParsedTransactions } from "../../crypto/signing/parsed-transactions.js";
import type { StoredVote } from "../../domains/activities/votes.js";
import type { OrganizationRow } from "../../records/organization.js";
import { alreadyExists, ApiError, GrpcCode, internalError } from "../../errors.js";
import type { Decision } from "../../policy/decision.js";
import type { Services } from "../../services.js";
import { isRetryableConflict, isStalePlan, isUniqueViolation, type Queryable } from "../../store/database.js";
import { FilledFieldsChanged, type ActivityDefinition } from "../../operations/activity-definition.js";
import { PreparationFailed } from "./prepare.js";

export type AfterCommitTask = () => Promise<void>;

export interface AllowedActivity {
  id: string;
  requesterUserId: string;
  /** The session profile of the credential the requester submitted it with (ActivityContext.requesterSessionProfileId). */
  requesterSessionProfileId?: string;
  /** The root quorum's approvals allowed it (rather than a policy or the self-service permission). */
  byRootQuorum: boolean;
  organization: OrganizationRow;
  definition: ActivityDefinition;
  params: Record<string, unknown>;
  /** What the definition's `prepare` answered, before the transaction (none when it has no `prepare`). */
  prepared?: unknown;
  /** What the definition's `validate` answered, at submission only (see ActivityContext.validated). */
  validated?: unknown;
  /** The request's parse of the transaction it signs (see ParsedTransactions); none: a new one. */
  parsedTransactions?: ParsedTransactions;
}

/** What running an allowed activity's handler came to; a failed one's writes are rolled back. */
export type HandlerOutcome =
  | { status: "ACTIVITY_STATUS_COMPLETED"; result: Record<string, unknown>; appProofs: unknown[]; afterCommit: AfterCommitTask[] }
  | { status: "ACTIVITY_STATUS_FAILED"; failure: ApiError };

/**
 * When execution finds bad input: at submission ("refuse") the whole request is refused (400, nothing
 * written); at a deciding approval ("fail") the input was accepted long ago, so the activity fails with the
 * error and the vote is kept.
 */
export type BadInput = "refuse" | "fail";

/** Turns what a handler threw into the activity's failure; a unique-constraint race reads as "already exists". */
function failureOf(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (isUniqueViolation(error)) return alreadyExists("a resource with the same unique name or key already exists", "REQUEST_INVALID");
  return undefined;
}

/** What an app proof of the decision records: the evaluations and the approvals that carried it. */
export function proofContext(fingerprint: string, decision: Decision, votes: StoredVote[]): ProofContext {
  return {
    fingerprint,
    evaluations: decision.evaluations,
    approvals: votes
      .filter((v) => v.selection === "VOTE_SELECTION_APPROVED")
      .map((v) => ({ publicKey: v.public_key, scheme: v.scheme, signature: v.signature })),
  };
}

/**
 * Step "execute": an allowed activity's handler, inside the activity's transaction (database only), under a
 * savepoint, exactly once: its result, or its failure with the handler's writes rolled back (and its
 * keep-on-failure writes made). The caller persists the outcome. The savepoint is set when the handler issues its
 * first statement: a handler that only computes (a signature with the key validation read) needs none.
 */
export async function runHandler(
  tx: Queryable,
  services: Services,
  activity: AllowedActivity,
  now: Date,
  onError: (error: unknown) => void,
  proofs: ProofContext | undefined,
  badInput: BadInput = "refuse",
): Promise<HandlerOutcome> {
  const { definition } = activity;
  const afterCommit: AfterCommitTask[] = [];
  const failureWrites: Array<(tx: Queryable) => Promise<void>> = [];
  const lockKey = await definition.lockKey?.(activity.params, tx);
  if (lockKey !== undefined) await tx.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [lockKey]);
  const underSavepoint = savepointOnFirstStatement(tx, "handler");
  try {
    if (activity.prepared instanceof PreparationFailed) throw activity.prepared.error;
    const context = {
      tx: underSavepoint.tx,
      organization: activity.organization,
      activityId: activity.id,
      requesterUserId: activity.requesterUserId,
      requesterSessionProfileId: activity.requesterSessionProfileId,
      byRootQuorum: activity.byRootQuorum,
      now,
      services,
      validated: activity.validated,
      parsedTransactions: activity.parsedTransactions ?? new ParsedTransactions(),
      afterCommit: (task: AfterCommitTask) => void afterCommit.push(task),
      keepOnFailure: (write: (tx: Queryable) => Promise<void>) => void failureWrites.push(write),
    };
    const result = { [definition.resultKey]: await definition.execute(context, activity.params, activity.prepared) };
    const appProofs = proofs
      ? await appProofsFor(
          underSavepoint.tx,
          services,
          { organization: activity.organization, type: definition.type, params: activity.params, result },
          proofs,
          now,
        )
      : [];
    return { status: "ACTIVITY_STATUS_COMPLETED", result, appProofs, afterCommit };
  } catch (error) {
    if (badInput === "refuse" && error instanceof ApiError && error.code === GrpcCode.INVALID_ARGUMENT) throw error;
    // A deadlock, serialization failure or stale plan is the store's, not the activity's: the transaction is retried.
    if (isRetryableConflict(error) || isStalePlan(error)) throw error;
    // What `fill` read before the decision no longer holds: the pipeline fills and decides again.
    if (error instanceof FilledFieldsChanged) throw error;
    let failure = failureOf(error);
    if (!failure) {
      onError(error);
      failure = internalError(`${definition.type} failed unexpectedly; the server log has the details (activity ${activity.id})`);
    }
    await underSavepoint.rollBack();
    for (const write of failureWrites) await write(tx);
    return { status: "ACTIVITY_STATUS_FAILED", failure };
  }
}

/**
 * `tx` as a handler sees it: the savepoint `name` is set just before the first statement (in the same socket write
 * as that statement on PostgreSQL, see src/store/postgres.ts); `rollBack` undoes what came after it, if anything did.
 */
function savepointOnFirstStatement(tx: Queryable, name: string): { tx: Queryable; rollBack(): Promise<void> } {
  let set: Promise<void> | undefined;
  const savepoint = () => (set ??= tx.exec(`SAVEPOINT ${name}`));
  return {
    tx: {
      query: async (sql, params) => {
        await savepoint();
        return tx.query(sql, params);
      },
      exec: async (sql) => {
        await savepoint();
        return tx.exec(sql);
      },
    },
    async rollBack() {
      if (set) await tx.exec(`ROLLBACK TO SAVEPOINT ${name}`);
    },
  };
}
