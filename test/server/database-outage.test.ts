import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { afterAll, describe, expect, it, vi } from "vitest";
import { resolveConfig } from "../../src/config.js";
import { startServer, type RunningServer } from "../../src/server/start.js";
import { initRoot } from "../helpers/cluster.js";
import { p256Stamp, post } from "../helpers/requests.js";
import { steadyLoad, UNAVAILABLE } from "../helpers/steady-load.js";
import { throwawayPostgres, throwawayPostgresAvailable, type ThrowawayCluster } from "../helpers/throwaway-postgres.js";

describe.runIf(throwawayPostgresAvailable)("PostgreSQL unavailable", () => {
  let pg: (ThrowawayCluster & { removeAll(): void }) | undefined;
  let server: RunningServer | undefined;
  afterAll(async () => {
    await server?.close();
    pg?.removeAll();
  });

  it("start-up waits for it, naming host, port and database but never the password; an outage while serving answers 503 and passes by itself", async () => {
    pg = await throwawayPostgres();
    const env = { ...process.env, LOG_LEVEL: "warn", DATABASE_URL: pg.url, STRONGROOM_MASTER_KEY: randomBytes(32).toString("hex") };
    const root = initRoot(env);

    // Start-up while PostgreSQL is down: it waits, saying for what, and starts once PostgreSQL is back.
    pg.stop();
    const lines: string[] = [];
    const logStream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const starting = startServer(resolveConfig({ port: 0, authProxyPort: "off" }, env), undefined, logStream);
    await vi.waitFor(() => expect(lines.join("")).toContain(`waiting for PostgreSQL at 127.0.0.1:${pg!.port}/postgres`), {
      timeout: 60_000,
      interval: 100,
    });
    pg.start();
    server = await starting;
    expect(lines.join("")).not.toContain("pw-never-logged");

    const load = steadyLoad(server, root);
    await vi.waitFor(() => expect(load.count(200)).toBeGreaterThan(10), { timeout: 60_000, interval: 100 });

    // An outage: every answer meanwhile is a 503 in the API's error shape, the health check's too.
    pg.stop("fast");
    await vi.waitFor(() => expect(load.count(503)).toBeGreaterThan(5), { timeout: 60_000, interval: 100 });
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual(UNAVAILABLE);

    // Back: the same server answers again, with nothing restarted.
    pg.start();
    const okBefore = load.count(200);
    await vi.waitFor(() => expect(load.count(200)).toBeGreaterThan(okBefore + 10), { timeout: 60_000, interval: 100 });
    await load.stop();
    expect([...load.statuses.keys()].sort()).toEqual([200, 503]);
    for (const body of load.bodies503) expect(body).toEqual(UNAVAILABLE);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);

    // Every wallet whose creation was acknowledged is there.
    const body = JSON.stringify({ organizationId: root.organizationId });
    const listed = await post(`${server.url}/public/v1/query/list_wallets`, body, {
      "X-Stamp": p256Stamp(body, root.apiPublicKey, root.apiPrivateKey),
    });
    const names = (listed.json.wallets as Array<{ walletName: string }>).map((w) => w.walletName);
    for (const name of load.created) expect(names).toContain(name);
  }, 400_000);
});
