import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import type { Services } from "../services.js";
import { resolvePublic } from "./destinations.js";

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  organization_id: string;
  event_type: string;
  body: string;
  attempts: number;
  url: string;
}

type Outcome = { kind: "delivered"; status: number } | { kind: "terminal"; status?: number; error: string } | { kind: "retry"; status?: number; error: string };

const MAX_BACKOFF_MS = 3_600_000;

/** Resolves the host at dial time and refuses non-public addresses, so DNS cannot be changed after the check. */
const publicLookup: LookupFunction = (hostname, options, callback) => {
  resolvePublic(hostname).then(
    ({ address, family }) => {
      if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
      else callback(null, address, family);
    },
    (error: Error) => callback(error as NodeJS.ErrnoException, "", 0),
  );
};

function post(url: URL, headers: Record<string, string>, body: string, timeoutMs: number, allowPrivate: boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const req = send(
      url,
      { method: "POST", headers: { ...headers, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) }, timeout: timeoutMs, ...(allowPrivate ? {} : { lookup: publicLookup }) },
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

/**
 * Claims due deliveries: the oldest pending one of each endpoint (deliveries are ordered per endpoint,
 * one in flight at a time), locked with SKIP LOCKED so several processes never claim the same row, and
 * leased, so the claim of a process that dies is taken up again when the lease runs out.
 */
async function claim(services: Services, limit: number): Promise<DeliveryRow[]> {
  const leaseMs = services.webhooks.timeoutMs * 2 + 5_000;
  return services.db.transaction(async (tx) => {
    const due = await tx.query<{ id: string }>(
      `SELECT d.id FROM webhook_deliveries d
        WHERE d.status = 'PENDING' AND d.next_attempt_at <= now() AND (d.claimed_until IS NULL OR d.claimed_until < now())
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e WHERE e.endpoint_id = d.endpoint_id AND e.status = 'PENDING' AND e.seq < d.seq)
        ORDER BY d.seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
    if (due.length === 0) return [];
    return tx.query<DeliveryRow>(
      `UPDATE webhook_deliveries d SET claimed_until = now() + ($2 || ' milliseconds')::interval, attempts = d.attempts + 1
         FROM webhook_endpoints e WHERE d.id = ANY($1::text[]) AND e.id = d.endpoint_id
       RETURNING d.id, d.endpoint_id, d.organization_id, d.event_type, d.body, d.attempts, e.url`,
      [due.map((d) => d.id), String(leaseMs)],
    );
  });
}

async function record(services: Services, row: DeliveryRow, outcome: Outcome): Promise<void> {
  const { maxAttempts, retryBaseMs } = services.webhooks;
  if (outcome.kind === "delivered") {
    await services.db.query("UPDATE webhook_deliveries SET status = 'DELIVERED', delivered_at = now(), last_status_code = $2, last_error = NULL, claimed_until = NULL WHERE id = $1", [row.id, outcome.status]);
  } else if (outcome.kind === "terminal" || row.attempts >= maxAttempts) {
    await services.db.query("UPDATE webhook_deliveries SET status = 'FAILED', last_status_code = $2, last_error = $3, claimed_until = NULL WHERE id = $1", [row.id, outcome.status ?? null, outcome.error]);
  } else {
    await services.db.query(
      "UPDATE webhook_deliveries SET last_status_code = $2, last_error = $3, claimed_until = NULL, next_attempt_at = now() + ($4 || ' milliseconds')::interval WHERE id = $1",
      [row.id, outcome.status ?? null, outcome.error, String(backoffMs(retryBaseMs, row.attempts))],
    );
  }
}

export interface DeliveryWorker {
  wake(): void;
  stop(): Promise<void>;
}

/** Sends the outbox: claims due deliveries, posts them signed, records the outcome; sleeps until woken or the next poll. */
export function startDeliveryWorker(services: Services, onError: (error: unknown) => void): DeliveryWorker {
  let running = true;
  let wakeUp: (() => void) | undefined;
  const loop = (async () => {
    while (running) {
      let claimed: DeliveryRow[] = [];
      try {
        claimed = await claim(services, 16);
        await Promise.all(claimed.map(async (row) => record(services, row, await attempt(services, row))));
      } catch (error) {
        if (running) onError(error);
      }
      if (claimed.length === 0 && running) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, services.webhooks.pollIntervalMs);
          wakeUp = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wakeUp = undefined;
      }
    }
  })();
  return {
    wake: () => wakeUp?.(),
    async stop() {
      running = false;
      wakeUp?.();
      await loop;
    },
  };
}
