import { v7 as uuidv7 } from "uuid";
import { activityRecord, type ActivityRow, type VoteRow } from "../activities/record.js";
import type { Queryable } from "../store/database.js";
import { parseFilters, passes, type EventType } from "./filters.js";

interface Subscriber {
  endpoint_id: string;
  organization_id: string;
  filters_json: string | null;
}

/** Active endpoints with an active subscription to `eventType`, owned by the organization or its parent. */
async function subscribers(tx: Queryable, organizationId: string, eventType: EventType): Promise<Subscriber[]> {
  return tx.query<Subscriber>(
    `SELECT e.id AS endpoint_id, e.organization_id, s.filters_json
       FROM webhook_endpoints e JOIN webhook_subscriptions s ON s.endpoint_id = e.id
      WHERE e.is_active AND s.is_active AND s.event_type = $2
        AND (e.organization_id = $1 OR e.organization_id = (SELECT parent_id FROM organizations WHERE id = $1))
      ORDER BY e.seq, s.position`,
    [organizationId, eventType],
  );
}

/** Writes one delivery per matching endpoint into the outbox, inside the caller's transaction. */
export async function enqueue(tx: Queryable, organizationId: string, eventType: EventType, facts: Record<string, string>, body: () => Promise<string>, now: Date): Promise<number> {
  const endpoints = new Map<string, string>();
  for (const s of await subscribers(tx, organizationId, eventType)) {
    let matches = false;
    try {
      matches = passes(parseFilters(eventType, s.filters_json ?? undefined), facts);
    } catch {
      // filters were validated when stored; an unreadable one filters nothing out
      matches = true;
    }
    if (matches) endpoints.set(s.endpoint_id, s.organization_id);
  }
  if (endpoints.size === 0) return 0;
  const payload = await body();
  for (const [endpointId, routingOrganizationId] of endpoints) {
    await tx.query(
      `INSERT INTO webhook_deliveries (id, endpoint_id, organization_id, event_type, body, next_attempt_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $6)`,
      [uuidv7(), endpointId, routingOrganizationId, eventType, payload, now],
    );
  }
  return endpoints.size;
}

/**
 * ACTIVITY_UPDATES: the activity as the API renders it, with RFC 3339 timestamps as the documented
 * webhook payload has them, queued in the same transaction as the status change it reports.
 */
export async function emitActivityUpdate(tx: Queryable, row: ActivityRow, now: Date): Promise<number> {
  return enqueue(tx, row.organization_id, "ACTIVITY_UPDATES", { activityType: row.type, activityStatus: row.status }, async () => {
    const votes = await tx.query<VoteRow>("SELECT * FROM votes WHERE activity_id = $1 ORDER BY created_at, id", [row.id]);
    const record = activityRecord(row, votes);
    return JSON.stringify({ ...record, createdAt: row.created_at.toISOString(), updatedAt: row.updated_at.toISOString() });
  }, now);
}
