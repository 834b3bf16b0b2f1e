import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Database, Transaction } from "../../src/store/database.js";
import { activityBody, p256Stamp, post } from "../helpers/requests.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createUserWithApiKey } from "../helpers/users.js";
import { startWebhookReceiver } from "../helpers/webhook-receiver.js";

/**
 * A new activity's insert is its transaction's last statement when nothing follows it: then it takes the COMMIT
 * along (one round trip fewer). Each transaction the server opens is watched here: whether an activity's insert
 * went through queryThenCommit, and, for the cases below, something done just before it.
 */
describe("a new activity's insert takes its transaction's COMMIT along when nothing follows it", () => {
  let server: TestServer;
  let db: Database;
  /** The transactions that inserted a new activity, in order. */
  let activityTransactions: { lastStatementCommitted: boolean }[] = [];
  /** Runs just before a transaction's queryThenCommit, with that transaction (once, then cleared). */
  let beforeLastStatement: ((tx: Transaction) => Promise<void>) | undefined;

  beforeAll(async () => {
    server = await startTestServer({
      env: { STRONGROOM_WEBHOOK_ALLOW_PRIVATE: "1", STRONGROOM_WEBHOOK_POLL_MS: "20" },
    });
    db = server.services.db;
    const transaction = db.transaction.bind(db);
    db.transaction = <T>(work: (tx: Transaction) => Promise<T>) =>
      transaction((tx) => {
        const seen = { lastStatementCommitted: false };
        const insertsActivity = (sql: string) => {
          if (sql.includes("INSERT INTO activities (")) activityTransactions.push(seen);
        };
        return work({
          query(sql, params) {
            insertsActivity(sql);
            return tx.query(sql, params);
          },
          exec: tx.exec.bind(tx),
          queryAhead: tx.queryAhead.bind(tx),
          async queryThenCommit(sql, params) {
            insertsActivity(sql);
            const before = beforeLastStatement;
            beforeLastStatement = undefined;
            await before?.(tx);
            seen.lastStatementCommitted = true;
            return tx.queryThenCommit(sql, params);
          },
        });
      });
  });
  afterAll(async () => server?.close());
  afterEach(() => {
    activityTransactions = [];
    beforeLastStatement = undefined;
  });

  const rename = (userName: string) => server.client().updateUserName({ userId: server.root.userId, userName });
  const userName = async () => (await db.query<{ name: string }>("SELECT name FROM users WHERE id = $1", [server.root.userId]))[0]!.name;

  /** A subscriber to every activity update of the root organization, written as create_webhook_endpoint would. */
  const subscribe = async (q: Pick<Transaction, "query">, url: string) => {
    const endpointId = randomUUID();
    const now = new Date();
    await q.query(
      "INSERT INTO webhook_endpoints (id, organization_id, url, name, created_at, updated_at) VALUES ($1, $2, $3, 'appeared', $4, $4)",
      [endpointId, server.root.organizationId, url, now],
    );
    await q.query("INSERT INTO webhook_subscriptions (endpoint_id, position, event_type) VALUES ($1, 0, 'ACTIVITY_UPDATES')", [endpointId]);
    return endpointId;
  };

  it("in an organization no one subscribes to, a rename's insert is its transaction's last statement", async () => {
    const { activity } = await rename("Renamed in one round trip fewer");
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(activityTransactions).toEqual([{ lastStatementCommitted: true }]);
    expect(await userName()).toBe("Renamed in one round trip fewer");
    const stored = await server.client().getActivity({ activityId: activity.id });
    expect(stored.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
  });

  it("a denied activity writes nothing, and its insert does not take the COMMIT", async () => {
    const { key } = await createUserWithApiKey(server.client(), "no policy allows me");
    activityTransactions = [];
    const before = await userName();
    const body = activityBody("ACTIVITY_TYPE_UPDATE_USER_NAME", server.root.organizationId, {
      userId: server.root.userId,
      userName: "never",
    });
    const denied = await post(`${server.url}/public/v1/submit/update_user_name`, body, {
      "X-Stamp": p256Stamp(body, key.publicKey, key.privateKey),
    });
    expect(denied.status, JSON.stringify(denied.json)).toBe(403);
    expect(activityTransactions).toEqual([{ lastStatementCommitted: false }]);
    expect(await userName()).toBe(before);
  });

  it("with a subscriber, the insert leaves without the COMMIT and the delivery is queued with the activity", async () => {
    const receiver = await startWebhookReceiver();
    try {
      const endpointId = await subscribe(db, receiver.url);
      const { activity } = await rename("Renamed with a subscriber");
      expect(activityTransactions).toEqual([{ lastStatementCommitted: false }]);
      await receiver.until((all) => all.some((d) => d.body.toString().includes(activity.id)));
      await db.query("DELETE FROM webhook_endpoints WHERE id = $1", [endpointId]);
    } finally {
      await receiver.close();
    }
  });

  it("a subscriber written in the transaction before the insert: nothing of the first run commits, and the activity runs again", async () => {
    beforeLastStatement = (tx) => subscribe(tx, "http://127.0.0.1:9/never").then(() => undefined);
    const { activity } = await rename("Renamed on the second run");
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    // The first run's insert refused to commit (SR001); the second ran without taking the COMMIT along.
    expect(activityTransactions).toEqual([{ lastStatementCommitted: true }, { lastStatementCommitted: false }]);
    expect(await db.query("SELECT 1 FROM webhook_endpoints WHERE url = 'http://127.0.0.1:9/never'")).toEqual([]);
    expect(await db.query("SELECT 1 FROM activities WHERE id = $1", [activity.id])).toHaveLength(1);
    expect(await userName()).toBe("Renamed on the second run");
  });

  it("PostgreSQL: a subscriber another transaction commits while the activity runs is delivered the activity", async (context) => {
    if (db.kind !== "postgres") return context.skip("PGlite runs one transaction at a time: none can commit meanwhile");
    const receiver = await startWebhookReceiver();
    try {
      let endpointId = "";
      // db.query runs on another pooled connection and commits at once.
      beforeLastStatement = async () => void (endpointId = await subscribe(db, receiver.url));
      const { activity } = await rename("Renamed while a subscriber appeared");
      expect(activityTransactions).toEqual([{ lastStatementCommitted: true }, { lastStatementCommitted: false }]);
      const [delivery] = await receiver.until((all) => all.some((d) => d.body.toString().includes(activity.id)));
      expect(JSON.parse(delivery!.body.toString())).toMatchObject({ id: activity.id, status: "ACTIVITY_STATUS_COMPLETED" });
      await db.query("DELETE FROM webhook_endpoints WHERE id = $1", [endpointId]);
    } finally {
      await receiver.close();
    }
  });
});
