import { randomUUID } from "node:crypto";
import type { Principal } from "../../auth/principal.js";
import { notFound, type ApiError } from "../../errors.js";
import type { Approval, Decision } from "../../policy/decision.js";
import type { Queryable } from "../../store/database.js";
import { loadUserRecord } from "../../records/user.js";
import { emitActivityUpdate } from "../webhooks/outbox.js";
import { APPROVAL_WINDOW_MS } from "./approval-window.js";
import type { ActivityRow } from "../../records/activity.js";
import type { VoteRow, VoteSelection } from "../../records/vote.js";

/** A signed request that counts as a vote: the submission of an activity (its first approval), or approve/reject. */
export interface VoteInput {
  principal: Principal;
  rawBody: Buffer;
  /** The body as the vote records it (its `message`), when it differs from `rawBody`: bearer secrets redacted. */
  recordedMessage?: string;
  now: Date;
  onError: (error: unknown) => void;
  /** Where the request came from (the audit log records it). */
  clientIp?: string;
}

export type StoredVote = VoteRow & { credential: Approval["credential"] | null };

/**
 * The vote `vote` casts, as its row will be stored, with the user as they are now: the record authentication
 * read with an API key, or read here (a passkey, a session).
 */
export async function newVote(db: Queryable, activityId: string, selection: VoteSelection, vote: VoteInput): Promise<StoredVote> {
  const { principal } = vote;
  const snapshot = principal.snapshot ?? (await loadUserRecord(db, principal.user.organizationId, principal.user.id, vote.now));
  return {
    id: randomUUID(),
    activity_id: activityId,
    user_id: principal.user.id,
    user_snapshot: snapshot as unknown as Record<string, unknown>,
    selection,
    message: vote.recordedMessage ?? vote.rawBody.toString("utf8"),
    public_key: principal.stamp.publicKey,
    signature: principal.stamp.signature,
    scheme: principal.stamp.scheme,
    credential: votedCredential(principal),
    created_at: vote.now,
  };
}

/** The credential a vote records (and the submission's own approval uses): what policies and MFA read of it. */
export function votedCredential(principal: Principal): Approval["credential"] {
  const { credential } = principal;
  return {
    id: credential.id,
    type: credential.type,
    publicKey: credential.publicKey,
    credentialId: credential.credentialId,
    authenticationType: principal.authenticationType,
    ...(principal.sessionProfile ? { sessionProfileId: principal.sessionProfile.id } : {}),
    ...(credential.createdAt ? { createdAt: credential.createdAt.toISOString() } : {}),
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

export async function insertVote(tx: Queryable, vote: StoredVote): Promise<void> {
  const [id, ...rest] = voteValues(vote);
  await tx.query(`INSERT INTO votes (${VOTE_COLUMNS}) VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8, $9, $10::jsonb, $11)`, [
    id,
    vote.activity_id,
    ...rest,
  ]);
}

export function approvalOf(vote: StoredVote): Approval {
  return { userId: vote.user_id, credential: vote.credential ?? { id: "", type: "", publicKey: vote.public_key } };
}

/** The votes that still count on an activity: none once the first is older than the approval window. */
export async function liveVotes(db: Queryable, activityId: string, now: Date): Promise<{ votes: StoredVote[]; lapsed: boolean }> {
  const votes = await db.query<StoredVote>("SELECT * FROM votes WHERE activity_id = $1 AND NOT expired ORDER BY created_at, id", [
    activityId,
  ]);
  const lapsed = votes.length > 0 && now.getTime() - votes[0]!.created_at.getTime() > APPROVAL_WINDOW_MS;
  return { votes: lapsed ? [] : votes, lapsed };
}

export async function expireVotes(tx: Queryable, activityId: string): Promise<void> {
  await tx.query("UPDATE votes SET expired = true WHERE activity_id = $1", [activityId]);
}

/** The activity's first vote, its submission: who submitted it, and with which credential. */
export async function submissionVoteOf(db: Queryable, activityId: string): Promise<Pick<StoredVote, "user_id" | "credential">> {
  const [first] = await db.query<Pick<StoredVote, "user_id" | "credential">>(
    "SELECT user_id, credential FROM votes WHERE activity_id = $1 ORDER BY created_at, id LIMIT 1",
    [activityId],
  );
  return first!;
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
    `UPDATE activities SET status = $2, failure = $3::jsonb, updated_at = $4,
            sealed_secret_params = CASE WHEN $2 IN ('ACTIVITY_STATUS_CONSENSUS_NEEDED', 'ACTIVITY_STATUS_AUTHENTICATORS_NEEDED') THEN sealed_secret_params END
      WHERE id = $1 RETURNING *`,
    [activityId, status, failure ? JSON.stringify(failure.toBody()) : null, now],
  );
  await emitActivityUpdate(tx, row!, now);
  return row!;
}

/** Records the result of an activity that waited for consensus and ran at its deciding approval; queues its webhooks. */
export async function setCompleted(
  tx: Queryable,
  activityId: string,
  result: Record<string, unknown>,
  appProofs: unknown[],
  now: Date,
): Promise<void> {
  const [row] = await tx.query<ActivityRow>(
    "UPDATE activities SET status = 'ACTIVITY_STATUS_COMPLETED', result = $2::jsonb, app_proofs = $3::jsonb, updated_at = $4, sealed_secret_params = NULL WHERE id = $1 RETURNING *",
    [activityId, JSON.stringify(result), JSON.stringify(appProofs), now],
  );
  await emitActivityUpdate(tx, row!, now);
}

export async function touchActivity(tx: Queryable, activityId: string, now: Date): Promise<void> {
  await tx.query("UPDATE activities SET updated_at = $2 WHERE id = $1", [activityId, now]);
}

/** The activity as it is now; `forUpdate` in a vote's transaction, which then holds its row lock. */
export async function currentActivity(db: Queryable, activityId: string, forUpdate = false): Promise<ActivityRow> {
  const [activity] = await db.query<ActivityRow>(`SELECT * FROM activities WHERE id = $1${forUpdate ? " FOR UPDATE" : ""}`, [activityId]);
  if (!activity) throw notFound(`activity ${activityId} no longer exists`);
  return activity;
}

/** The activity with this body, in any organization (a resubmission finds its activity by fingerprint). */
export async function activityWithFingerprint(db: Queryable, fingerprint: string): Promise<ActivityRow | undefined> {
  const [row] = await db.query<ActivityRow>(ACTIVITY_WITH_FINGERPRINT, [fingerprint]);
  return row;
}

/** The activity whose body has the fingerprint $1, if any. */
export const ACTIVITY_WITH_FINGERPRINT = "SELECT * FROM activities WHERE fingerprint = $1";

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
