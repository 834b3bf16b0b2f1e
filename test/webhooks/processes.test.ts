import { freshPostgresDatabase } from "../helpers/postgres-database.js";
import { Turnkey } from "@turnkey/sdk-server";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, startServerProcess } from "../helpers/processes.js";
import { startWebhookReceiver } from "../helpers/webhook-receiver.js";

const WEBHOOKS = {
  STRONGROOM_WEBHOOK_ALLOW_PRIVATE: "1",
  STRONGROOM_WEBHOOK_POLL_MS: "20",
  STRONGROOM_WEBHOOK_RETRY_BASE_MS: "30",
  STRONGROOM_WEBHOOK_TIMEOUT_MS: "500",
  LOG_LEVEL: "warn",
};

function embeddedEnv(dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...WEBHOOKS, STRONGROOM_DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  delete env.STRONGROOM_MASTER_KEY;
  return env;
}

const client = (url: string, root: { organizationId: string; apiPublicKey: string; apiPrivateKey: string }) =>
  new Turnkey({
    apiBaseUrl: url,
    apiPublicKey: root.apiPublicKey,
    apiPrivateKey: root.apiPrivateKey,
    defaultOrganizationId: root.organizationId,
  }).apiClient();

describe("webhook delivery across processes", () => {
  it("survives SIGKILL between commit and delivery: the event is delivered after restart", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "strongroom-crash-"));
    let open = false;
    const receiver = await startWebhookReceiver(() => (open ? 200 : 503));
    try {
      const env = embeddedEnv(dataDir);
      const init = runCli(["init"], env);
      expect(init.status, init.stderr).toBe(0);
      const root = JSON.parse(init.stdout) as { organizationId: string; apiPublicKey: string; apiPrivateKey: string };
      const first = await startServerProcess(env);
      await client(first.url, root).createWebhookEndpoint({
        url: receiver.url,
        name: "crash",
        subscriptions: [{ eventType: "ACTIVITY_UPDATES" }],
      });
      const { activity } = await client(first.url, root).createUserTag({ userTagName: "survivor", userIds: [] });
      await first.kill();

      open = true;
      const second = await startServerProcess(env);
      try {
        const all = await receiver.until(
          (d) => d.some((x) => x.status === 200 && JSON.parse(x.body.toString()).id === activity.id),
          30_000,
        );
        const successes = all.filter((x) => x.status === 200 && JSON.parse(x.body.toString()).id === activity.id);
        expect(successes).toHaveLength(1);
      } finally {
        await second.kill();
      }
    } finally {
      await receiver.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);

  it.skipIf(!process.env.DATABASE_URL)(
    "delivers each event once with two processes on one PostgreSQL",
    async () => {
      const database = await freshPostgresDatabase(process.env.DATABASE_URL!, "strongroom_cluster");
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        ...WEBHOOKS,
        STRONGROOM_WORKERS: "1",
        DATABASE_URL: database.url,
        STRONGROOM_MASTER_KEY: randomBytes(32).toString("hex"),
      };
      const receiver = await startWebhookReceiver();
      const processes = [];
      try {
        const init = runCli(["init"], env);
        expect(init.status, init.stderr).toBe(0);
        const root = JSON.parse(init.stdout) as { organizationId: string; apiPublicKey: string; apiPrivateKey: string };
        processes.push(await startServerProcess(env), await startServerProcess(env));
        const [a, b] = processes.map((p) => client(p.url, root));
        await a!.createWebhookEndpoint({ url: receiver.url, name: "cluster", subscriptions: [{ eventType: "ACTIVITY_UPDATES" }] });
        const ids = await Promise.all(
          Array.from(
            { length: 20 },
            async (_, i) => (await (i % 2 ? a! : b!).createUserTag({ userTagName: `tag ${i}`, userIds: [] })).activity.id,
          ),
        );
        await receiver.until((d) => ids.every((id) => d.some((x) => JSON.parse(x.body.toString()).id === id)), 30_000);
        // Stopped, each process has finished what its worker was sending: no delivery can come after this.
        for (const p of processes) expect(await p.stop()).toBe(0);
        const perEvent = new Map<string, number>();
        for (const d of receiver.received)
          perEvent.set(String(d.headers["x-turnkey-event-id"]), (perEvent.get(String(d.headers["x-turnkey-event-id"])) ?? 0) + 1);
        expect([...perEvent.values()].every((n) => n === 1)).toBe(true);
        expect(perEvent.size).toBe(21);
      } finally {
        for (const p of processes) await p.kill();
        await receiver.close();
        await database.drop();
      }
    },
    120_000,
  );
});
