import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddedEnv, initRoot } from "../helpers/cluster.js";
import { startServerProcess, type ServerProcess } from "../helpers/processes.js";

/** Sends one request over `agent` (a keep-alive pool, or `false` for a connection of its own); resolves with the status. */
function post(url: string, agent: Agent | false, path: string, body: string, stamp: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, url),
      { method: "POST", agent, headers: { "content-type": "application/json", "x-stamp": stamp } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * The embedded store's engine answers synchronously, so under load whole runs of requests could pass in one drain of
 * the microtask queue while the event loop's I/O waited: a connection opened during a burst of load was accepted
 * only one per drain, its request answered only when the load ended. Counted in answers, not in time: how many of
 * the busy connections' requests were answered while each new connection's first request waited.
 */
describe.skipIf(process.env.DATABASE_URL)("the embedded store under load", () => {
  let dir: string;
  let server: ServerProcess;
  let whoami: { body: string; stamp: string };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "strongroom-fairness-"));
    const env = embeddedEnv(join(dir, "data"));
    const root = initRoot(env);
    server = await startServerProcess(env);
    const body = JSON.stringify({ organizationId: root.organizationId });
    const stamper = new ApiKeyStamper({ apiPublicKey: root.apiPublicKey, apiPrivateKey: root.apiPrivateKey });
    whoami = { body, stamp: (await stamper.stamp(body)).stampHeaderValue };
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("accepts and answers new connections while busy ones keep it loaded", async () => {
    const busy = new Agent({ keepAlive: true, maxSockets: 40 });
    let answered = 0;
    let loading = true;
    const load = Array.from({ length: 40 }, async () => {
      while (loading) {
        expect(await post(server.url, busy, "/public/v1/query/whoami", whoami.body, whoami.stamp)).toBe(200);
        answered++;
      }
    });
    try {
      while (answered < 2000) await new Promise((resolve) => setTimeout(resolve, 5));
      // 20 new connections, one request each, while the 40 busy ones go on.
      const waited = await Promise.all(
        Array.from({ length: 20 }, async () => {
          const before = answered;
          expect(await post(server.url, false, "/public/v1/query/whoami", whoami.body, whoami.stamp)).toBe(200);
          return answered - before;
        }),
      );
      // Before, each accept waited for a drain that answered every busy connection once: 40 answers per new
      // connection, 850 for the last (about 10 per connection, 210 for the last, since).
      expect(Math.max(...waited), `busy answers while each new connection waited: ${waited.sort((a, b) => a - b).join(" ")}`).toBeLessThan(
        600,
      );
    } finally {
      loading = false;
      await Promise.all(load);
      busy.destroy();
    }
  }, 120_000);
});
