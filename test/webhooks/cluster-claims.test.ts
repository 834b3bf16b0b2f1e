import { Turnkey } from "@turnkey/sdk-server";
import { describe, expect, it } from "vitest";
import { initRootOrganization } from "../../src/domains/organizations/init-root-organization.js";
import { resolveConfig } from "../../src/config.js";
import { startServer, type RunningServer } from "../../src/server/start.js";
import { sharedPostgres } from "../helpers/cluster.js";
import { startWebhookReceiver } from "../helpers/webhook-receiver.js";

const ENDPOINTS = 4;
const ACTIVITIES = 60;

/**
 * Two delivery workers claim from one outbox as fast as they can, while activities keep queueing events:
 * every event reaches every endpoint exactly once, and never two at a time to one endpoint.
 */
describe.skipIf(!process.env.DATABASE_URL)("webhook claims shared by two servers on one PostgreSQL", () => {
  it("deliver each event once, one at a time per endpoint", async () => {
    const database = await sharedPostgres({
      STRONGROOM_WEBHOOK_ALLOW_PRIVATE: "1",
      STRONGROOM_WEBHOOK_POLL_MS: "5",
      STRONGROOM_WEBHOOK_TIMEOUT_MS: "5000",
      LOG_LEVEL: "silent",
    });
    const receiver = await startWebhookReceiver(() => 200, 3);
    const servers: RunningServer[] = [];
    try {
      const config = resolveConfig({ dataDir: "memory://", host: "127.0.0.1", port: 0 }, { ...database.env, AUTH_PROXY_PORT: "0" });
      servers.push(await startServer(config), await startServer(config));
      const root = await initRootOrganization(servers[0]!.services, { organizationName: "Claims", userName: "Root" });
      const [a, b] = servers.map((s) =>
        new Turnkey({
          apiBaseUrl: s.url,
          apiPublicKey: root.apiPublicKey,
          apiPrivateKey: root.apiPrivateKey!,
          defaultOrganizationId: root.organizationId,
        }).apiClient(),
      );
      for (let i = 0; i < ENDPOINTS; i++)
        await a!.createWebhookEndpoint({
          url: `${receiver.url}?endpoint=${i}`,
          name: `endpoint ${i}`,
          subscriptions: [{ eventType: "ACTIVITY_UPDATES" }],
        });

      const ids: string[] = [];
      for (let batch = 0; batch < ACTIVITIES / 10; batch++) {
        const renamed = await Promise.all(
          Array.from({ length: 10 }, (_, i) => (i % 2 ? a! : b!).updateUserName({ userId: root.userId, userName: `Root ${batch}.${i}` })),
        );
        ids.push(...renamed.map((r) => r.activity.id));
      }
      const reachedAll = (id: string) =>
        new Set(receiver.received.filter((d) => JSON.parse(d.body.toString()).id === id).map((d) => d.path)).size === ENDPOINTS;
      await receiver.until(() => ids.every(reachedAll), 60_000);
      // Closed, each server has finished what its worker was sending: no delivery can come after this.
      for (const s of servers) await s.close();

      const timesSent = new Map<string, number>();
      for (const d of receiver.received)
        timesSent.set(String(d.headers["x-turnkey-event-id"]), (timesSent.get(String(d.headers["x-turnkey-event-id"])) ?? 0) + 1);
      expect([...timesSent].filter(([, n]) => n > 1)).toEqual([]);
      expect([...receiver.maxInFlight.values()]).toEqual(Array(ENDPOINTS).fill(1));
    } finally {
      for (const s of servers) await s.close();
      await receiver.close();
      await database.drop();
    }
  }, 120_000);
});
