import type { Queryable } from "../store/database.js";
import type { RefusalBudget } from "./refusal-budget.js";
import { canonicalJson, type JsonValue } from "./canonical-json.js";

/** What writes events into the log: whether recording is on (STRONGROOM_AUDIT), and the HMAC for free text. */
export interface AuditRecorder {
  readonly recording: boolean;
  /** STRONGROOM_AUDIT_QUERIES: queries are recorded too. */
  readonly recordQueries: boolean;
  /** `hmac-sha256:<hex>` of a value under the audit HMAC key (src/crypto/audit-keys.ts). */
  hmac(value: string): string;
  /** Tells the integrator that events were committed (no-op where none runs in this process). */
  wake(): void;
  /** How many refusals are recorded in full, per organization, requester and minute (src/audit/refusal-budget.ts). */
  readonly refusals: RefusalBudget;
}

/** Names the log's entries use for their own fields; an event may not carry them. */
const ENTRY_FIELDS = ["index", "previousRoot", "time", "organizationId", "type"];

/**
 * One event of the log, as written by the transaction that makes the change: who (a user and credential), what
 * (the event's type and details), when (`time`, the server's clock), where from (`clientIp`), and which
 * organization may read it (none: the server's own). Never key material, codes, tokens or secrets; free text
 * that may quote user input goes in as an HMAC (`AuditRecorder.hmac`).
 */
export interface AuditEvent {
  organizationId: string | null;
  time: Date;
  type: string;
  details: Record<string, JsonValue | undefined>;
}

/**
 * Writes `event` in the caller's transaction, so it commits or rolls back with the change it records; the
 * integrator gives it its index once committed (src/audit/integrate.ts). Nothing when recording is off.
 */
export async function recordAuditEvent(tx: Queryable, audit: Pick<AuditRecorder, "recording">, event: AuditEvent): Promise<void> {
  if (audit.recording) await insertAuditEvent(tx, event);
}

/**
 * Writes `event` whether recording is on or not (the log's own notes); with `ifOrganizationExists`, only when
 * the organization it belongs to exists. Answers whether it was written.
 */
export async function insertAuditEvent(
  tx: Queryable,
  event: AuditEvent,
  options: { ifOrganizationExists?: boolean } = {},
): Promise<boolean> {
  const written = await tx.query(
    options.ifOrganizationExists
      ? "INSERT INTO audit_pending (organization_id, event) SELECT id, $2 FROM organizations WHERE id = $1 RETURNING 1"
      : "INSERT INTO audit_pending (organization_id, event) VALUES ($1, $2) RETURNING 1",
    [event.organizationId, pendingEvent(event)],
  );
  return written.length > 0;
}

/** The event's canonical JSON, as it waits for its index (a statement writing it into audit_pending itself takes this). */
export function pendingEvent(event: AuditEvent): string {
  for (const field of ENTRY_FIELDS)
    if (field in event.details) throw new Error(`an audit event's details may not hold ${JSON.stringify(field)}`);
  return canonicalJson({ ...event.details, organizationId: event.organizationId, time: event.time.toISOString(), type: event.type });
}
