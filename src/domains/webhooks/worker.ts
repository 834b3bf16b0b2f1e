import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { startBackgroundLoop } from "../../background-loop.js";
import type { Services } from "../../services.js";
import { resolvePublic } from "./destinations.js";

interface DeliveryRow {
  id: string;
  seq: string;
  endpoint_id: string;
  organization_id: string;
  event_type: string;
  body: string;
  attempts: number;
  url: string;
}

type Outcome =
  | { kind: "delivered"; status: number }
  | { kind: "terminal"; status?: number; error: string }
  | { kind: "retry"; status?: number; error: string };

const MAX_BACKOFF_MS = 3_600_000;

/** Resolves the host at dial time and refuses non-public addresses, so DNS cannot be changed after the check. */
const publicLookup: LookupFunction = (hostname, options, callback) => {
  resolvePublic(hostname).then(
    ({ address, family }) => {
      if ((options as { all?: boolean }).all)
        (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
      else callback(null, address, family);
    },
    (error: Error) => callback(error as NodeJS.ErrnoException, "", 0),
  );
};

async function post(url: URL, headers: Record<string, string>, body: string, timeoutMs: number, allowPrivate: boolean): Promise<number> {
  // Node connects to an IP literal without a lookup, so publicLookup never sees it: judge it here by the same rule.
  const literal = url.hostname.replace(/^\[|\]$/g, "");
  if (!allowPrivate && isIP(literal) !== 0) await resolvePublic(literal);
  return new Promise((resolve, reject) => {
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const req = send(
      url,
      {
        method: "POST",
        headers: { ...headers, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) },
        timeout: timeoutMs,
        ...(allowPrivate ? {} : { lookup: publicLookup }),
      },
      (res: IncomingMessage) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no response within ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end(body);
  });
}

/** 2xx delivered; 3xx, 4xx and 429 final (redirects are not followed); 5xx, timeouts and network errors retried. */
async function attempt(services: Services, row: DeliveryRow): Promise<Outcome> {
  const timestampMs = String(Date.now());
  const bodyBytes = new TextEncoder().encode(row.body);
  const key = services.webhooks.signingKey;
  const headers = {
    "X-Turnkey-Organization-Id": row.organization_id,
    "X-Turnkey-Event-Type": row.event_type,
    "X-Turnkey-Timestamp": timestampMs,
    "X-Turnkey-Webhook-Version": "1",
    "X-Turnkey-Event-Id": row.id,
    "X-Turnkey-Signature-Key-Id": key.keyId,
    "X-Turnkey-Signature-Algorithm": "ed25519",
    "X-Turnkey-Signature-Version": "v1",
    "X-Turnkey-Signature": key.sign(timestampMs, row.id, bodyBytes),
  };
  try {
    const status = await post(new URL(row.url), headers, row.body, services.webhooks.timeoutMs, services.webhooks.allowPrivate);
    if (status >= 200 && status < 300) return { kind: "delivered", status };
    if (status >= 500) return { kind: "retry", status, error: `HTTP ${status}` };
    return { kind: "terminal", status, error: `HTTP ${status}` };
  } catch (error) {
    return { kind: "retry", error: (error as Error).message };
  }
}

/** Exponential backoff with jitter: base · 2^(attempt−1), between half and all of it, at most an hour. */
export function backoffMs(base: number, attempts: number): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, base * 2 ** Math.max(0, attempts - 1));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/** How many consecutive events of one endpoint one claim takes (sent in order, stopping at a failure). */
const RUN_LENGTH = 16;

/** Endpoints whose oldest pending event is due and not claimed (by a live lease). */
const ENDPOINTS_WITH_DUE_HEAD = `
  SELECT h.endpoint_id FROM (
    SELECT DISTINCT ON (endpoint_id) endpoint_id, next_attempt_at, claimed_until
      FROM webhook_deliveries WHERE status = 'PENDING' ORDER BY endpoint_id, seq
  ) h
  WHERE h.next_attempt_at <= now() AND (h.claimed_until IS NULL OR h.claimed_until < now())`;

/**
 * Claims due deliveries: for endpoints whose oldest pending event is due and unclaimed, that event and the
 * ones queued behind it (deliveries are ordered per endpoint, one in flight at a time). The claim is leased,
 * so the claim of a process that dies is taken up again when the lease runs out.
 *
 * Several processes may claim at once. Each first locks the endpoints it found (SKIP LOCKED, so processes
 * divide them rather than wait), then reads their queues again in a new statement: that statement's snapshot
 * includes every claim committed before the lock was granted, so no two processes claim the same delivery or
 * the same endpoint. Locking the rows themselves would not do: a row claimed and committed by another process
 * while this one's query ran is locked anyway, because the recheck after the wait does not re-run the subquery.
 * NO KEY UPDATE leaves the endpoint's key share free, so enqueueing (a foreign key to it) never waits.
 */
async function claim(services: Services, endpoints: number): Promise<DeliveryRow[]> {
  const leaseMs = (services.webhooks.timeoutMs + 1_000) * RUN_LENGTH + 5_000;
  return services.db.transaction(async (tx) => {
    const locked = await tx.query<{ id: string }>(
      `SELECT e.id FROM webhook_endpoints e WHERE e.id IN (${ENDPOINTS_WITH_DUE_HEAD} LIMIT $1) FOR NO KEY UPDATE SKIP LOCKED`,
      [endpoints],
    );
    if (locked.length === 0) return [];
    return tx.query<DeliveryRow>(
      `UPDATE webhook_deliveries d SET claimed_until = now() + ($3 || ' milliseconds')::interval
         FROM webhook_endpoints e
        WHERE e.id = d.endpoint_id AND d.id IN (
          SELECT r.id FROM (
            SELECT p.id, row_number() OVER (PARTITION BY p.endpoint_id ORDER BY p.seq) AS rank
              FROM webhook_deliveries p
             WHERE p.status = 'PENDING' AND p.endpoint_id = ANY($1::text[]) AND p.endpoint_id IN (${ENDPOINTS_WITH_DUE_HEAD})
          ) r WHERE r.rank <= $2)
       RETURNING d.id, d.endpoint_id, d.organization_id, d.event_type, d.body, d.attempts, d.seq, e.url`,
      [locked.map((e) => e.id), RUN_LENGTH, String(leaseMs)],
    );
  });
}

/** Records one attempt's outcome; returns whether the endpoint's next event may follow. */
async function record(services: Services, row: DeliveryRow, outcome: Outcome): Promise<boolean> {
  const { maxAttempts, retryBaseMs } = services.webhooks;
  const attempts = row.attempts + 1;
  const final = outcome.kind === "terminal" || attempts >= maxAttempts;
  services.metrics.webhookAttempts.inc({ outcome: outcome.kind === "delivered" ? "delivered" : final ? "failed" : "retry" });
  if (outcome.kind === "delivered") {
    await services.db.query(
      "UPDATE webhook_deliveries SET status = 'DELIVERED', attempts = $2, delivered_at = now(), last_status_code = $3, last_error = NULL, claimed_until = NULL WHERE id = $1",
      [row.id, attempts, outcome.status],
    );
    return true;
  }
  if (final) {
    await services.db.query(
      "UPDATE webhook_deliveries SET status = 'FAILED', attempts = $2, last_status_code = $3, last_error = $4, claimed_until = NULL WHERE id = $1",
      [row.id, attempts, outcome.status ?? null, outcome.error],
    );
    return true;
  }
  await services.db.query(
    "UPDATE webhook_deliveries SET attempts = $2, last_status_code = $3, last_error = $4, claimed_until = NULL, next_attempt_at = now() + ($5 || ' milliseconds')::interval WHERE id = $1",
    [row.id, attempts, outcome.status ?? null, outcome.error, String(backoffMs(retryBaseMs, attempts))],
  );
  return false;
}

/** Sends one endpoint's claimed run in order; at a failure to retry, the rest wait behind it (claims released). */
async function deliverRun(services: Services, run: DeliveryRow[]): Promise<void> {
  for (const [index, row] of run.entries()) {
    if (!(await record(services, row, await attempt(services, row)))) {
      const rest = run.slice(index + 1).map((r) => r.id);
      if (rest.length > 0) await services.db.query("UPDATE webhook_deliveries SET claimed_until = NULL WHERE id = ANY($1::text[])", [rest]);
      return;
    }
  }
}

export interface DeliveryWorker {
  wake(): void;
  stop(): Promise<void>;
}

/** Whether any delivery waits, due or not: none means the worker has no work at all until something is queued. */
async function anyPending(services: Services): Promise<boolean> {
  const [row] = await services.db.query<{ pending: boolean }>(
    "SELECT EXISTS (SELECT 1 FROM webhook_deliveries WHERE status = 'PENDING') AS pending",
  );
  return row?.pending ?? false;
}

export interface DeliveryWorkerOptions {
  /** Periodic store housekeeping run on each turn of the loop (each decides itself whether it is due). */
  housekeeping?: Array<() => Promise<void>>;
  /**
   * How long it sleeps, unless woken, when no delivery waits at all (background-loop.ts, idleIntervalMs). Set only
   * where every enqueue wakes it: the embedded store.
   */
  idleIntervalMs?: number;
}

/** Sends the outbox: claims due deliveries, posts them signed, records the outcome; sleeps until woken or the next poll. */
export function startDeliveryWorker(
  services: Services,
  onError: (error: unknown) => void,
  { housekeeping = [], idleIntervalMs }: DeliveryWorkerOptions = {},
): DeliveryWorker {
  return startBackgroundLoop(
    async () => {
      for (const task of housekeeping) await task().catch(onError);
      const claimed = await claim(services, 16);
      const runs = new Map<string, DeliveryRow[]>();
      for (const row of claimed.sort((a, b) => Number(a.seq) - Number(b.seq)))
        runs.set(row.endpoint_id, [...(runs.get(row.endpoint_id) ?? []), row]);
      await Promise.all([...runs.values()].map((run) => deliverRun(services, run)));
      if (claimed.length > 0) return true;
      // Only a long idle interval is worth the statement: retries and claims not yet due keep the poll.
      return idleIntervalMs !== undefined && !(await anyPending(services)) ? "idle" : false;
    },
    { pollIntervalMs: services.webhooks.pollIntervalMs, idleIntervalMs },
    onError,
  );
}
