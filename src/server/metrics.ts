import { Counter, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export interface Metrics {
  registry: Registry;
  requestDuration: Histogram<"route" | "status">;
  activities: Counter<"type" | "status">;
}

/** A registry per app instance, so several servers in one process (tests) do not collide. */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "strongroom_" });
  return {
    registry,
    requestDuration: new Histogram({
      name: "strongroom_http_request_duration_seconds",
      help: "HTTP request latency by route and status code",
      labelNames: ["route", "status"],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    activities: new Counter({
      name: "strongroom_activities_total",
      help: "Activities submitted, by type and resulting status",
      labelNames: ["type", "status"],
      registers: [registry],
    }),
  };
}
