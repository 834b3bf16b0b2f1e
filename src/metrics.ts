import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { Queryable } from "./store/database.js";

export interface Metrics {
  registry: Registry;
  /**
   * Adds the process's own metrics (CPU, memory, event loop lag, garbage collection) to the registry, once. Only where
   * the registry is read (METRICS_PORT, the workers of a cluster whose primary serves it): measuring the event loop's
   * lag wakes the process a hundred times a second, which an idle server otherwise never is.
   */
  includeProcessMetrics(): void;
  requestDuration: Histogram<"route" | "status">;
  /** Latency of each API operation (`create_wallet`, `get_wallet`, …), by kind and HTTP status. */
  operationDuration: Histogram<"operation" | "kind" | "status">;
  activities: Counter<"type" | "status">;
  /** Submissions answered with an error and no activity (bad input, authentication, denial), by API error code. */
  refusals: Counter<"operation" | "code">;
  policyDenials: Counter<"type">;
  /** How long activities waited for consensus, observed when a vote ends the wait. */
  consensusWait: Histogram<"type" | "status">;
  /** Webhook delivery attempts by outcome: delivered, retry, failed. */
  webhookAttempts: Counter<"outcome">;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/**
 * A registry per set of services, so several servers in one process (tests) do not collide. With `db`, the
 * webhook queue depth is read from the store at each scrape (so it is the cluster's, not this process's).
 */
export function createMetrics(db?: Queryable): Metrics {
  const registry = new Registry();
  let processMetrics = false;
  const registers = [registry];
  if (db) {
    new Gauge({
      name: "strongroom_webhook_queue_depth",
      help: "Webhook deliveries waiting to be delivered (PENDING), in the whole store",
      registers,
      // Every worker of `serve --workers` reads the same count: the workers' sum would multiply it.
      aggregator: "max",
      async collect() {
        const [row] = await db.query<{ pending: string }>("SELECT count(*) AS pending FROM webhook_deliveries WHERE status = 'PENDING'");
        this.set(Number(row?.pending ?? 0));
      },
    });
  }
  return {
    registry,
    includeProcessMetrics() {
      if (processMetrics) return;
      processMetrics = true;
      collectDefaultMetrics({ register: registry, prefix: "strongroom_" });
    },
    requestDuration: new Histogram({
      name: "strongroom_http_request_duration_seconds",
      help: "HTTP request latency by route and status code",
      labelNames: ["route", "status"],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    operationDuration: new Histogram({
      name: "strongroom_operation_duration_seconds",
      help: "API operation latency by operation (submit/<operation> or query/<operation>), kind and HTTP status",
      labelNames: ["operation", "kind", "status"],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    activities: new Counter({
      name: "strongroom_activities_total",
      help: "Activities submitted, by type and resulting status (COMPLETED, FAILED, CONSENSUS_NEEDED, REJECTED)",
      labelNames: ["type", "status"],
      registers,
    }),
    refusals: new Counter({
      name: "strongroom_activity_refusals_total",
      help: "Submissions refused without an activity (bad input, authentication, policy denial), by operation and API error code",
      labelNames: ["operation", "code"],
      registers,
    }),
    policyDenials: new Counter({
      name: "strongroom_policy_denials_total",
      help: "Activities denied by the organization's policies, by activity type",
      labelNames: ["type"],
      registers,
    }),
    consensusWait: new Histogram({
      name: "strongroom_consensus_wait_seconds",
      help: "How long an activity waited for consensus, by type and the status the deciding vote gave it",
      labelNames: ["type", "status"],
      buckets: [1, 10, 60, 300, 1800, 3600, 6 * 3600, 24 * 3600, 7 * 24 * 3600],
      registers,
    }),
    webhookAttempts: new Counter({
      name: "strongroom_webhook_delivery_attempts_total",
      help: "Webhook delivery attempts by outcome (delivered, retry, failed), made by this process",
      labelNames: ["outcome"],
      registers,
    }),
  };
}
