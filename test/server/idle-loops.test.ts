import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { watchStore } from "../helpers/watch-store.js";

const onPostgres = process.env.DATABASE_URL !== undefined;

describe(`an idle server's background loops (${onPostgres ? "PostgreSQL" : "embedded"})`, () => {
  let server: TestServer;
  const count = async (table: string) =>
    Number((await server.services.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${table}`))[0]!.n);

  beforeAll(async () => {
    // Every pass that integrates also signs a checkpoint: none is left owed (owed, the integrator keeps polling).
    server = await startTestServer({ env: { STRONGROOM_AUDIT_CHECKPOINT_SECONDS: "0" } });
    await vi.waitFor(async () => expect(await count("audit_pending")).toBe(0), { timeout: 5_000, interval: 50 });
    await sleep(2_000); // the loops' first passes end (the keyring worker's comes a poll, a second, after the start)
  });
  afterAll(() => server?.close());

  /** The statements the store runs over `ms` with no request in flight. */
  async function statementsWhileIdle(ms: number): Promise<string[]> {
    const watched = watchStore(server);
    await sleep(ms);
    return watched.statements;
  }

  it(
    onPostgres
      ? "keeps polling on PostgreSQL, where other processes write"
      : "runs no statement on the embedded store while nothing is pending, and still integrates an activity's event at once",
    async () => {
      // Four polls of the integrator and of the webhook worker (500 ms), two of the keyring (1 s).
      const idle = await statementsWhileIdle(2_000);
      if (onPostgres) {
        expect(idle.some((sql) => sql.includes("audit_log_state"))).toBe(true);
        expect(idle.some((sql) => sql.includes("webhook_deliveries"))).toBe(true);
        expect(idle.some((sql) => sql.includes("seal_requests"))).toBe(true);
        return;
      }
      expect(idle).toEqual([]);

      // The activity wakes the integrator: its event is in the log well before the next idle pass (a minute).
      const entries = await count("audit_entries");
      await server.client().updateUserName({ userId: server.root.userId, userName: "Woken" });
      await vi.waitFor(async () => expect(await count("audit_entries")).toBeGreaterThan(entries), { timeout: 3_000, interval: 50 });
      await sleep(1_000);
      expect(await statementsWhileIdle(2_000)).toEqual([]);
    },
  );

  it("does not measure the event loop (a timer every 10 ms) where no metrics port serves it", () => {
    expect(server.services.metrics.registry.getSingleMetric("strongroom_nodejs_eventloop_lag_seconds")).toBeUndefined();
    expect(server.metricsUrl).toBeUndefined();
  });
});
