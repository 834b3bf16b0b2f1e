import { v7 as uuidv7 } from "uuid";
import { activityRecord, type ActivityRow } from "../../records/activity.js";
import type { VoteRow } from "../../records/vote.js";
import type { Queryable } from "../../store/database.js";
import { subscribersSql, type Subscriber } from "../../records/webhook-subscribers.js";
import { parseFilters, passes, type EventType } from "./filters.js";

/** Writes one delivery per matching endpoint into the outbox, inside the caller's transaction. */
export async function enqueue(
  tx: Queryable,
  organizationId: string,
  eventType: EventType,
  facts: Record<string, string>,
  body: () => Promise<string>,
  now: Date,
): Promise<number> {
  const subscribers = await tx.query<Subscriber>(subscribersSql("$1", "$2"), [organizationId, eventType]);
  return enqueueTo(tx, subscribers, eventType, facts, body, now);
}

/** Writes one delivery per endpoint among `subscribers` whose filters the event passes. */
export async function enqueueTo(
  tx: Queryable,
  subscribers: Subscriber[],
  eventType: EventType,
  facts: Record<string, string>,
  body: () => Promise<string>,
  now: Date,
): Promise<number> {
  const endpoints = new Map<string, string>();
  for (const s of subscribers) {
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
  const subscribers = await tx.query<Subscriber>(subscribersSql("$1", "'ACTIVITY_UPDATES'"), [row.organization_id]);
  return emitActivityUpdateTo(tx, subscribers, row, now);
}

/** The same, to subscribers already looked up; `votes` when the caller holds them all (a new activity's one vote). */
export async function emitActivityUpdateTo(
  tx: Queryable,
  subscribers: Subscriber[],
  row: ActivityRow,
  now: Date,
  votes?: VoteRow[],
): Promise<number> {
  return enqueueTo(
    tx,
    subscribers,
    "ACTIVITY_UPDATES",
    { activityType: row.type, activityStatus: row.status },
    async () => {
      const record = activityRecord(
        row,
        votes ?? (await tx.query<VoteRow>("SELECT * FROM votes WHERE activity_id = $1 ORDER BY created_at, id", [row.id])),
      );
      return JSON.stringify({ ...record, createdAt: row.created_at.toISOString(), updatedAt: row.updated_at.toISOString() });
    },
    now,
  );
}
