import { randomUUID } from "node:crypto";
import { pendingEvent, type AuditEvent } from "../../audit/record.js";
import type { PolicyOutcome } from "../../policy/decision.js";
import { isUniqueViolation, type Transaction } from "../../store/database.js";
import { subscribersSql, type Subscriber } from "../../records/webhook-subscribers.js";
import type { ActivityRow } from "../../records/activity.js";
import { VOTE_COLUMNS, voteValues, type StoredVote } from "./votes.js";
import { DELETE_OWN_CLAIM } from "../../records/activity-claim.js";

/**
 * Writes a new activity in its final state with its first vote and that vote's policy evaluations, in ONE
 * statement, which also reads who subscribes to its ACTIVITY_UPDATES and writes its audit event (when given) for the
 * integrator (src/audit/). With `releaseClaim`, it also deletes this process's claim on the fingerprint
 * (src/pipeline/steps/claim.ts), which the activity now stands for. The activity's fingerprint decides: when another
 * activity holds it, nothing is written and the answer is undefined.
 *
 * With `commit`, the statement is the transaction's last and leaves with its COMMIT (`queryThenCommit`): it reads no
 * subscribers (the caller knows there are none) and answers none, and an activity holding the fingerprint already
 * fails the statement, which rolls the transaction back, rather than leaving the rest of it to commit.
 */
export async function insertNewActivity(
  tx: Transaction,
  row: ActivityRow,
  vote: StoredVote,
  evaluations: PolicyOutcome[],
  auditEvent: AuditEvent | undefined,
  { releaseClaim = false, commit = false }: { releaseClaim?: boolean; commit?: boolean } = {},
): Promise<Subscriber[] | undefined> {
  const params = [
    row.id,
    row.organization_id,
    row.type,
    row.status,
    row.fingerprint,
    JSON.stringify(row.intent),
    JSON.stringify(row.result),
    row.failure === null ? null : JSON.stringify(row.failure),
    row.generate_app_proofs,
    JSON.stringify(row.app_proofs),
    row.created_at,
    ...voteValues(vote),
    randomUUID(),
    JSON.stringify(evaluations),
    row.sealed_secret_params ?? null,
    auditEvent?.organizationId ?? null,
    auditEvent ? pendingEvent(auditEvent) : null,
    releaseClaim,
  ];
  if (commit) {
    try {
      await tx.queryThenCommit(INSERT_THEN_COMMIT, params);
      return [];
    } catch (error) {
      if (isUniqueViolation(error) && (error as { constraint?: string }).constraint === FINGERPRINT_INDEX) return undefined;
      throw error;
    }
  }
  const [written] = await tx.query<{ inserted: boolean; subscribers: Subscriber[] | null }>(INSERT, params);
  return written?.inserted ? (written.subscribers ?? []) : undefined;
}

/** The unique index that makes a body's fingerprint its activity's. */
const FINGERPRINT_INDEX = "activities_fingerprint";

const insertSql = (onConflict: string, answer: string) => `WITH activity AS (
       INSERT INTO activities (id, organization_id, type, status, fingerprint, intent, result, failure, generate_app_proofs, app_proofs, created_at, updated_at, sealed_secret_params)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8::jsonb, $9, $10::jsonb, $11, $11, $24)
       ${onConflict} RETURNING id
     ), vote AS (
       INSERT INTO votes (${VOTE_COLUMNS})
       SELECT $12, id, $13, $14::jsonb, $15, $16, $17, $18, $19, $20::jsonb, $21 FROM activity RETURNING id
     ), evaluation AS (
       INSERT INTO policy_evaluations (id, activity_id, organization_id, vote_id, evaluations, created_at)
       SELECT $22, $1, $2, id, $23::jsonb, $11 FROM vote
     ), audited AS (
       INSERT INTO audit_pending (organization_id, event) SELECT $25, $26::text FROM activity WHERE $26::text IS NOT NULL
     ), released AS (
       ${DELETE_OWN_CLAIM("$5")} AND $27::boolean AND EXISTS (SELECT 1 FROM activity)
     )
     ${answer}`;

const INSERT = insertSql(
  "ON CONFLICT (fingerprint) DO NOTHING",
  `SELECT EXISTS (SELECT 1 FROM activity) AS inserted,
            (SELECT json_agg(s) FROM (${subscribersSql("$2", "'ACTIVITY_UPDATES'")}) s) AS subscribers`,
);
const INSERT_THEN_COMMIT = insertSql("", "SELECT 1");
