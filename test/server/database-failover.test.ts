import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it, vi } from "vitest";
import { resolveConfig } from "../../src/config.js";
import { startServer, type RunningServer } from "../../src/server/start.js";
import { initRoot } from "../helpers/cluster.js";
import { p256Stamp, post } from "../helpers/requests.js";
import { steadyLoad, UNAVAILABLE } from "../helpers/steady-load.js";
import { throwawayPostgres, throwawayPostgresAvailable, type ThrowawayCluster } from "../helpers/throwaway-postgres.js";

async function sql<Row>(url: string, text: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as Row[];
  } finally {
    await client.end();
  }
}

describe.runIf(throwawayPostgresAvailable)("PostgreSQL failover", () => {
  let primary: (ThrowawayCluster & { removeAll(): void }) | undefined;
  let server: RunningServer | undefined;
  afterAll(async () => {
    await server?.close();
    primary?.removeAll();
  });

  it("a promoted synchronous standby is found by itself through a multi-host DATABASE_URL; 503 meanwhile; nothing acknowledged is lost", async () => {
    primary = await throwawayPostgres();
    const standby = await primary.standby();
    // Synchronous from here on (set after the base backup, so the standby, once promoted, waits for no one).
    await sql(primary.url, "ALTER SYSTEM SET synchronous_standby_names = '*'");
    await sql(primary.url, "SELECT pg_reload_conf()");
    await vi.waitFor(
      async () =>
        expect(await sql<{ sync_state: string }>(primary!.url, "SELECT sync_state FROM pg_stat_replication")).toEqual([
          { sync_state: "sync" },
        ]),
      { timeout: 60_000, interval: 200 },
    );

    const url =
      `postgres://postgres:pw-never-logged@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/postgres` +
      "?target_session_attrs=read-write";
    const env = { ...process.env, LOG_LEVEL: "warn", DATABASE_URL: url, STRONGROOM_MASTER_KEY: randomBytes(32).toString("hex") };
    const root = initRoot(env);
    server = await startServer(resolveConfig({ port: 0, authProxyPort: "off" }, env));
    expect(server.services.store.location).toBe(`127.0.0.1:${primary.port},127.0.0.1:${standby.port}/postgres`);

    const load = steadyLoad(server, root);
    await vi.waitFor(() => expect(load.count(200)).toBeGreaterThan(10), { timeout: 60_000, interval: 100 });

    // The primary is lost (a crash), and only then is the standby promoted.
    primary.stop("immediate");
    await vi.waitFor(() => expect(load.count(503)).toBeGreaterThan(5), { timeout: 60_000, interval: 100 });
    standby.promote();
    const okBefore = load.count(200);
    await vi.waitFor(() => expect(load.count(200)).toBeGreaterThan(okBefore + 10), { timeout: 120_000, interval: 100 });
    await load.stop();

    expect([...load.statuses.keys()].sort()).toEqual([200, 503]);
    for (const body of load.bodies503) expect(body).toEqual(UNAVAILABLE);
    // Every wallet whose creation was acknowledged, before or after the failover, is on the new primary.
    const body = JSON.stringify({ organizationId: root.organizationId });
    const listed = await post(`${server.url}/public/v1/query/list_wallets`, body, {
      "X-Stamp": p256Stamp(body, root.apiPublicKey, root.apiPrivateKey),
    });
    const names = new Set((listed.json.wallets as Array<{ walletName: string }>).map((w) => w.walletName));
    const lost = load.created.filter((name) => !names.has(name));
    expect(lost).toEqual([]);
    console.log(
      `failover: ${load.count(200)} answered 200, ${load.count(503)} answered 503, ${load.created.length} wallets acknowledged, 0 lost`,
    );
  }, 400_000);
});
