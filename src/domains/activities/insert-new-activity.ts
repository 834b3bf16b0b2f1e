import { randomUUID } from "node:crypto";
import { pendingEvent, type AuditEvent } from "../../audit/record.js";
import type { PolicyOutcome } from "../../policy/decision.js";
import type { Transaction } from "../../store/database.js";
import { subscribersSql, type Subscriber } from "../webhooks/outbox.js";
import type { ActivityRow } from "../../records/activity.js";
import { VOTE_COLUMNS, voteValues, type StoredVote } from "./votes.js";

/** The unique index on activities' fingerprints: a body's one activity. */
const FINGERPRINT_INDEX = "activities_fingerprint";

/** The insert failed because another activity holds the fingerprint (the same body, submitted before or concurrently). */
export function isFingerprintTaken(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { constraint?: string }).constraint === FINGERPRINT_INDEX;
}

/** The insert refused to commit: a subscriber to the organization's ACTIVITY_UPDATES appeared (migration 0040). */
export function isSubscriberAppeared(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: string }).code === "SR001";
}

/**
 * Writes a new activity in its final state with its first vote and that vote's policy evaluations, in ONE
 * statement, which also reads who subscribes to its ACTIVITY_UPDATES and writes its audit event (when given) for the
 * integrator (src/audit/). When another activity holds its fingerprint, the statement fails (see `isFingerprintTaken`)
 * and nothing is written.
 *
 * With `last`, the caller found no subscriber when its transaction began and has nothing after this statement: it
 * takes the transaction's COMMIT along, and fails (see `isSubscriberAppeared`) if a subscriber exists by now, as
 * the delivery it would need was not queued.
 */
export async function insertNewActivity(
  tx: Transaction,
  row: ActivityRow,
  vote: StoredVote,
  evaluations: PolicyOutcome[],
  auditEvent: AuditEvent | undefined,
  { last }: { last: boolean },
): Promise<Subscriber[]> {
  const [written] = await (last ? tx.queryThenCommit.bind(tx) : tx.query.bind(tx))<{ subscribers: Subscriber[] | null }>(
    `WITH subscriber AS (${subscribersSql("$2", "'ACTIVITY_UPDATES'")}),
     activity AS (
       INSERT INTO activities (id, organization_id, type, status, fingerprint, intent, result, failure, generate_app_proofs, app_proofs, created_at, updated_at, sealed_secret_params)
       SELECT $1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8::jsonb, $9, $10::jsonb, $11, $11, $24
        WHERE CASE WHEN $27 AND EXISTS (SELECT 1 FROM subscriber) THEN strongroom_subscriber_appeared() ELSE true END
       RETURNING id
     ), vote AS (
       INSERT INTO votes (${VOTE_COLUMNS})
       SELECT $12, id, $13, $14::jsonb, $15, $16, $17, $18, $19, $20::jsonb, $21 FROM activity RETURNING id
     ), evaluation AS (
       INSERT INTO policy_evaluations (id, activity_id, organization_id, vote_id, evaluations, created_at)
       SELECT $22, $1, $2, id, $23::jsonb, $11 FROM vote
     ), audited AS (
       INSERT INTO audit_pending (organization_id, event) SELECT $25, $26::text FROM activity WHERE $26::text IS NOT NULL
     )
     SELECT (SELECT json_agg(s) FROM subscriber s) AS subscribers`,
    [
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
      last,
    ],
  );
  return written?.subscribers ?? [];
}
