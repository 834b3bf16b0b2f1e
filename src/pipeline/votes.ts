import { randomUUID } from "node:crypto";
import type { Principal } from "../auth/authenticate.js";
import {
  alreadyExists,
  ApiError,
  failedPrecondition,
  GrpcCode,
  internalError,
  invalidArgument,
  notFound,
  permissionDenied,
} from "../errors.js";
import { decide, type Approval, type Decision } from "../policy/decide.js";
import { requireOrganization, type OrganizationRow } from "../domains/organizations/organizations.js";
import { loadUserRecord } from "../domains/users/user-records.js";
import { validate } from "../schema/validate.js";
import type { Services } from "../services.js";
import { isRetryableConflict, isStalePlan, isUniqueViolation, type Queryable } from "../store/database.js";
import type { ActivityDefinition } from "./activity-definition.js";
import { emitActivityUpdate } from "../domains/webhooks/outbox.js";
import { appProofsFor, type ProofContext } from "../domains/activities/app-proofs.js";
import { loadActivityRecord, type ActivityRecord, type ActivityRow, type VoteRow } from "../domains/activities/record.js";
import { activitiesByType } from "./registry.js";

/** Approvals lapse when consensus is not reached within 24 hours of the first one. */
export const APPROVAL_WINDOW_MS = 24 * 60 * 60 * 1000;

export type VoteSelection = "VOTE_SELECTION_APPROVED" | "VOTE_SELECTION_REJECTED";

export interface VoteInput {
  principal: Principal;
  rawBody: Buffer;
  now: Date;
  onError: (error: unknown) => void;
}

export type StoredVote = VoteRow & { credential: Approval["credential"] | null };

/**
 * The vote `vote` casts, as its row will be stored, with the user as they are now: the record authentication
 * read with an API key, or read here (a passkey, a session).
 */
export async function newVote(tx: Queryable, activityId: string, selection: VoteSelection, vote: VoteInput): Promise<StoredVote> {
  const { principal } = vote;
  const snapshot = principal.snapshot ?? (await loadUserRecord(tx, principal.user.organizationId, principal.user.id));
  return {
    id: randomUUID(),
    activity_id: activityId,
    user_id: principal.user.id,
    user_snapshot: snapshot as unknown as Record<string, unknown>,
    selection,
    message: vote.rawBody.toString("utf8"),
    public_key: principal.stamp.publicKey,
    signature: principal.stamp.signature,
    scheme: principal.stamp.scheme,
    credential: {
      id: principal.credential.id,
      type: principal.credential.type,
      publicKey: principal.credential.publicKey,
      credentialId: principal.credential.credentialId,
    },
    created_at: vote.now,
  };
}

export const VOTE_COLUMNS =
  "id, activity_id, user_id, user_snapshot, selection, message, public_key, signature, scheme, credential, created_at";

/** A vote's values in VOTE_COLUMNS order, all but activity_id, which the inserting statement supplies. */
export function voteValues(vote: StoredVote): unknown[] {
  return [
    vote.id,
    vote.user_id,
    JSON.stringify(vote.user_snapshot),
    vote.selection,
    vote.message,
    vote.public_key,
    vote.signature,
    vote.scheme,
    JSON.stringify(vote.credential),
    vote.created_at,
  ];
}

async function insertVote(tx: Queryable, activityId: string, selection: VoteSelection, vote: VoteInput): Promise<StoredVote> {
  const cast = await newVote(tx, activityId, selection, vote);
  const [id, ...rest] = voteValues(cast);
  await tx.query(`INSERT INTO votes (${VOTE_COLUMNS}) VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8, $9, $10::jsonb, $11)`, [
    id,
    activityId,
    ...rest,
  ]);
  return cast;
}

export function approvalOf(vote: StoredVote): Approval {
  return { userId: vote.user_id, credential: vote.credential ?? { id: "", type: "", publicKey: vote.public_key } };
}

export async function recordEvaluations(
  tx: Queryable,
  activityId: string,
  organizationId: string,
  voteId: string,
  decision: Decision,
  now: Date,
): Promise<void> {
  await tx.query(
    "INSERT INTO policy_evaluations (id, activity_id, organization_id, vote_id, evaluations, created_at) VALUES ($1, $2, $3, $4, $5::jsonb, $6)",
    [randomUUID(), activityId, organizationId, voteId, JSON.stringify(decision.evaluations), now],
  );
}

/** Sets an activity's status and queues its ACTIVITY_UPDATES webhooks in the same transaction. */
export async function setStatus(tx: Queryable, activityId: string, status: string, now: Date, failure?: ApiError): Promise<ActivityRow> {
  const [row] = await tx.query<ActivityRow>(
    "UPDATE activities SET status = $2, failure = $3::jsonb, updated_at = $4 WHERE id = $1 RETURNING *",
    [activityId, status, failure ? JSON.stringify(failure.toBody()) : null, now],
  );
  await emitActivityUpdate(tx, row!, now);
  return row!;
}

/** Turns what a handler threw into the activity's failure; a unique-constraint race reads as "already exists". */
function failureOf(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (isUniqueViolation(error)) return alreadyExists("a resource with the same unique name or key already exists", "REQUEST_INVALID");
  return undefined;
}

export type AfterCommitTask = () => Promise<void>;

/** Runs the tasks handlers deferred until their transaction committed; failures go to the log. */
export function runAfterCommit(tasks: AfterCommitTask[], onError: (error: unknown) => void): void {
  for (const task of tasks) task().catch(onError);
}

export interface AllowedActivity {
  id: string;
  requesterUserId: string;
  /** The root quorum's approvals allowed it (rather than a policy or the self-service permission). */
  byRootQuorum: boolean;
  organization: OrganizationRow;
  definition: ActivityDefinition;
  params: Record<string, unknown>;
  /** What the definition's `prepare` answered, before the transaction (none when it has no `prepare`). */
  prepared?: unknown;
}

/** What running an allowed activity's handler came to; a failed one's writes are rolled back. */
export type HandlerOutcome =
  | { status: "ACTIVITY_STATUS_COMPLETED"; result: Record<string, unknown>; appProofs: unknown[]; afterCommit: AfterCommitTask[] }
  | { status: "ACTIVITY_STATUS_FAILED"; failure: ApiError };

/**
 * Runs an allowed activity's handler under a savepoint, exactly once: its result, or its failure with the
 * handler's writes rolled back (and its keep-on-failure writes made). The caller records the outcome. Bad
 * input the handler finds is rethrown: the caller's error, 400, for the whole transaction.
 */
export async function runHandler(
  tx: Queryable,
  services: Services,
  activity: AllowedActivity,
  now: Date,
  onError: (error: unknown) => void,
  proofs: ProofContext | undefined,
): Promise<HandlerOutcome> {
  const { definition } = activity;
  const afterCommit: AfterCommitTask[] = [];
  const failureWrites: Array<(tx: Queryable) => Promise<void>> = [];
  const lockKey = await definition.lockKey?.(activity.params, tx);
  if (lockKey !== undefined) await tx.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [lockKey]);
  await tx.exec("SAVEPOINT handler");
  try {
    const context = {
      tx,
      organization: activity.organization,
      activityId: activity.id,
      requesterUserId: activity.requesterUserId,
      byRootQuorum: activity.byRootQuorum,
      now,
      services,
      afterCommit: (task: AfterCommitTask) => void afterCommit.push(task),
      keepOnFailure: (write: (tx: Queryable) => Promise<void>) => void failureWrites.push(write),
    };
    const result = { [definition.resultKey]: await definition.execute(context, activity.params, activity.prepared) };
    const appProofs = proofs
      ? await appProofsFor(
          tx,
          services,
          { organization: activity.organization, type: definition.type, params: activity.params, result },
          proofs,
          now,
        )
      : [];
    return { status: "ACTIVITY_STATUS_COMPLETED", result, appProofs, afterCommit };
  } catch (error) {
    if (error instanceof ApiError && error.code === GrpcCode.INVALID_ARGUMENT) throw error;
    // A deadlock, serialization failure or stale plan is the store's, not the activity's: the transaction is retried.
    if (isRetryableConflict(error) || isStalePlan(error)) throw error;
    let failure = failureOf(error);
    if (!failure) {
      onError(error);
      failure = internalError(`${definition.type} failed unexpectedly; the server log has the details (activity ${activity.id})`);
    }
    await tx.exec("ROLLBACK TO SAVEPOINT handler");
    for (const write of failureWrites) await write(tx);
    return { status: "ACTIVITY_STATUS_FAILED", failure };
  }
}

/** Records a handler's outcome on an activity that waited for consensus, and queues its webhooks. */
async function recordOutcome(
  tx: Queryable,
  activityId: string,
  outcome: HandlerOutcome,
  now: Date,
  afterCommit: AfterCommitTask[],
): Promise<void> {
  if (outcome.status === "ACTIVITY_STATUS_FAILED") {
    await setStatus(tx, activityId, "ACTIVITY_STATUS_FAILED", now, outcome.failure);
    return;
  }
  const [row] = await tx.query<ActivityRow>(
    "UPDATE activities SET status = 'ACTIVITY_STATUS_COMPLETED', result = $2::jsonb, app_proofs = $3::jsonb, updated_at = $4 WHERE id = $1 RETURNING *",
    [activityId, JSON.stringify(outcome.result), JSON.stringify(outcome.appProofs), now],
  );
  await emitActivityUpdate(tx, row!, now);
  afterCommit.push(...outcome.afterCommit);
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

/** The `prepare` phase of a stored activity (one waiting for consensus), outside any transaction. */
async function prepareStored(services: Services, activity: ActivityRow): Promise<unknown> {
  const definition = activitiesByType.get(activity.type);
  if (!definition?.prepare) return undefined;
  const params = validate(definition.parameters, activity.intent[definition.intentKey], "parameters") as Record<string, unknown>;
  return definition.prepare(services, params, await requireOrganization(services.db, activity.organization_id));
}

/**
 * The activity approve_activity / reject_activity name, in the organization the request targets. An activity
 * of another organization is answered exactly as one that does not exist, so a fingerprint tells a
 * non-member nothing (not whether it exists, its id, nor its organization).
 */
export async function findByFingerprint(db: Queryable, fingerprint: string, organizationId: string): Promise<ActivityRow> {
  const [row] = await db.query<ActivityRow>("SELECT * FROM activities WHERE fingerprint = $1 AND organization_id = $2", [
    fingerprint,
    organizationId,
  ]);
  if (!row)
    throw notFound(
      `No activity found with fingerprint ${fingerprint}. Consensus activities must target an existing activity by fingerprint`,
      "ACTIVITY_NOT_FOUND",
    );
  return row;
}

/**
 * A vote on an activity waiting for consensus: a rejection rejects it; an approval re-runs the decision
 * with every approval that has not lapsed, and once allowed the activity executes — once, under the
 * activity row's lock, whichever process receives the deciding vote.
 */
export async function castVote(
  services: Services,
  target: ActivityRow,
  selection: VoteSelection,
  vote: VoteInput,
): Promise<ActivityRecord> {
  const { principal, now } = vote;
  if (principal.viaParent || principal.user.organizationId !== target.organization_id) {
    throw invalidArgument(
      `organization mismatch: activity ${target.id} is in organization ${target.organization_id}, but user ${principal.user.id} is in organization ${principal.user.organizationId}`,
      "ORGANIZATION_MISMATCH",
    );
  }
  const afterCommit: AfterCommitTask[] = [];
  // An approval may execute the activity: its CPU-heavy preparation runs now, before the transaction.
  const prepared = selection === "VOTE_SELECTION_APPROVED" ? await prepareStored(services, target) : undefined;
  await services.db.transaction(async (tx) => {
    afterCommit.length = 0; // a retried transaction starts over
    const [activity] = await tx.query<ActivityRow>("SELECT * FROM activities WHERE id = $1 FOR UPDATE", [target.id]);
    if (!activity) throw notFound(`activity ${target.id} no longer exists`);
    if (activity.status !== "ACTIVITY_STATUS_CONSENSUS_NEEDED") {
      throw failedPrecondition(
        `activity ${activity.id} is ${activity.status}; votes are taken only while an activity waits for consensus`,
        "ACTIVITY_NOT_VOTABLE",
      );
    }
    let live = await tx.query<StoredVote>("SELECT * FROM votes WHERE activity_id = $1 AND NOT expired ORDER BY created_at, id", [
      activity.id,
    ]);
    if (live.length > 0 && now.getTime() - live[0]!.created_at.getTime() > APPROVAL_WINDOW_MS) {
      await tx.query("UPDATE votes SET expired = true WHERE activity_id = $1", [activity.id]);
      live = [];
    }
    if (live.some((v) => v.user_id === principal.user.id)) {
      throw failedPrecondition(
        `user ${principal.user.id} has already voted on activity ${activity.id}; each user votes once`,
        "ALREADY_VOTED",
      );
    }
    const cast = await insertVote(tx, activity.id, selection, vote);
    if (selection === "VOTE_SELECTION_REJECTED") {
      await setStatus(tx, activity.id, "ACTIVITY_STATUS_REJECTED", now);
      return;
    }
    const definition = activitiesByType.get(activity.type);
    if (!definition) throw internalError(`activity ${activity.id} has type ${activity.type}, which this server no longer serves`);
    const params = validate(definition.parameters, activity.intent[definition.intentKey], "parameters") as Record<string, unknown>;
    const organization = await requireOrganization(tx, activity.organization_id);
    const approvals = [...live, cast].filter((v) => v.selection === "VOTE_SELECTION_APPROVED").map(approvalOf);
    const decision = await decide(tx, { definition, params, organization, approvals, now });
    await recordEvaluations(tx, activity.id, organization.id, cast.id, decision, now);
    if (decision.outcome === "allow") {
      const proofs = activity.generate_app_proofs ? proofContext(activity.fingerprint, decision, [...live, cast]) : undefined;
      const [first] = await tx.query<{ user_id: string }>(
        "SELECT user_id FROM votes WHERE activity_id = $1 ORDER BY created_at, id LIMIT 1",
        [activity.id],
      );
      const outcome = await runHandler(
        tx,
        services,
        {
          id: activity.id,
          requesterUserId: first!.user_id,
          byRootQuorum: decision.byRootQuorum === true,
          organization,
          definition,
          params,
          prepared,
        },
        now,
        vote.onError,
        proofs,
      );
      await recordOutcome(tx, activity.id, outcome, now, afterCommit);
    } else if (decision.outcome === "deny")
      await setStatus(tx, activity.id, "ACTIVITY_STATUS_FAILED", now, permissionDenied(decision.reason));
    else await tx.query("UPDATE activities SET updated_at = $2 WHERE id = $1", [activity.id, now]);
  });
  services.webhooks.wake();
  runAfterCommit(afterCommit, vote.onError);
  const record = await loadActivityRecord(services.db, "id", target.id, principal.user.id);
  if (!record) throw internalError(`activity ${target.id} vanished`);
  return record;
}
