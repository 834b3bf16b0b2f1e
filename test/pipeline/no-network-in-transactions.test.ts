import { AsyncLocalStorage, createHook } from "node:async_hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Transaction } from "../../src/store/database.js";
import { refusal } from "../helpers/refusal.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/**
 * No DNS lookup happens while an activity's transaction is open: webhook endpoint create/update resolve their
 * host in the activity's `prepare` step. Each transaction's work runs in an AsyncLocalStorage context, and
 * Node's own getaddrinfo requests (async_hooks' GETADDRINFOREQWRAP) are observed with the context they start in.
 */
describe("webhook endpoint hosts are resolved outside the activity's transaction", () => {
  let server: TestServer;
  const inTransaction = new AsyncLocalStorage<true>();
  const lookups: { inTransaction: boolean }[] = [];
  const hook = createHook({
    init(_id, type) {
      if (type === "GETADDRINFOREQWRAP") lookups.push({ inTransaction: inTransaction.getStore() === true });
    },
  });

  beforeAll(async () => {
    server = await startTestServer();
    const db = server.services.db;
    const transaction = db.transaction.bind(db);
    db.transaction = <T>(work: (tx: Transaction) => Promise<T>) => transaction((tx) => inTransaction.run(true, () => work(tx)));
    hook.enable();
  });
  afterAll(async () => {
    hook.disable();
    await server?.close();
  });

  it("create_webhook_endpoint", async () => {
    lookups.length = 0;
    const refused = await refusal(
      server.client().createWebhookEndpoint({
        url: "https://localhost/hook",
        name: "private host",
        subscriptions: [{ eventType: "ACTIVITY_UPDATES", isActive: false }],
      }),
    );
    expect(refused.code).toBe(3);
    expect(refused.message).toContain("url: the host localhost resolves to");
    expect(lookups.length).toBeGreaterThan(0);
    expect(lookups.filter((l) => l.inTransaction)).toEqual([]);
  });

  it("update_webhook_endpoint", async () => {
    const { endpointId } = await server.client().createWebhookEndpoint({
      url: "https://93.184.216.34/hook",
      name: "public address",
      subscriptions: [{ eventType: "ACTIVITY_UPDATES", isActive: false }],
    });
    lookups.length = 0;
    const refused = await refusal(server.client().updateWebhookEndpoint({ endpointId, url: "https://localhost/other" }));
    expect(refused.code).toBe(3);
    expect(lookups.length).toBeGreaterThan(0);
    expect(lookups.filter((l) => l.inTransaction)).toEqual([]);
  });
});
