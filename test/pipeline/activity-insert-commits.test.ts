import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fingerprintOf } from "../../src/pipeline/steps/parse.js";
import { activityBody, p256Stamp, post } from "../helpers/requests.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { watchStore } from "../helpers/watch-store.js";
import { startWebhookReceiver } from "../helpers/webhook-receiver.js";

const ACTIVITY_INSERT = /INSERT INTO activities /;
/** Authentication's statement for a submission, which says whether anyone subscribes to the organization's activity updates. */
const AUTHENTICATION = /AS stamp_activity_updates_subscribed/;

/**
 * A new activity's insert leaves with its transaction's COMMIT when nothing has to be written after it: a round trip
 * fewer. Only when authentication found no subscriber to the organization's activity updates (a delivery is queued
 * after the insert); and a body another activity took meanwhile must still roll back everything its handler did.
 */
describe("a new activity's insert and its COMMIT", () => {
  let server: TestServer;
  let store: ReturnType<typeof watchStore>;
  const userName = async () =>
    (await server.client().getUser({ organizationId: server.root.organizationId, userId: server.root.userId })).user.userName;

  beforeAll(async () => {
    server = await startTestServer({ env: { STRONGROOM_WEBHOOK_ALLOW_PRIVATE: "1", STRONGROOM_WEBHOOK_POLL_MS: "20" } });
    store = watchStore(server);
  });
  afterAll(async () => server?.close());

  it("leave together when no one subscribes to the organization's activity updates", async () => {
    store.statements = [];
    store.committedWith = [];
    const { activity } = await server.client().updateUserName({ userId: server.root.userId, userName: "Committed with it" });
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(store.committedWith).toHaveLength(1);
    expect(store.committedWith[0]).toMatch(ACTIVITY_INSERT);
    expect(await userName()).toBe("Committed with it");
  });

  it("a body another activity took between authentication and the insert rolls back whole, and answers that activity", async () => {
    const body = activityBody("ACTIVITY_TYPE_UPDATE_USER_NAME", server.root.organizationId, {
      userId: server.root.userId,
      userName: "Never written",
    });
    let earlier: string | undefined;
    store.committedWith = [];
    store.afterStatement = {
      pattern: AUTHENTICATION,
      hook: async () => {
        const { activity } = await server.client().updateUserName({ userId: server.root.userId, userName: "Written first" });
        await server.services.db.query("UPDATE activities SET fingerprint = $1 WHERE id = $2", [
          fingerprintOf(Buffer.from(body)),
          activity.id,
        ]);
        earlier = activity.id;
      },
    };
    const answer = await post(`${server.url}/public/v1/submit/update_user_name`, body, {
      "X-Stamp": p256Stamp(body, server.root.apiPublicKey, server.root.apiPrivateKey!),
    });
    expect(answer.status).toBe(200);
    expect((answer.json.activity as { id: string }).id).toBe(earlier);
    // Both inserts were sent with their COMMIT; the second failed on the fingerprint, and its rename went with it.
    expect(store.committedWith).toHaveLength(2);
    expect(await userName()).toBe("Written first");
  });

  it("with a subscriber, the insert is answered before the COMMIT leaves, and the update is delivered", async () => {
    const receiver = await startWebhookReceiver();
    const delivered = (id: string) =>
      receiver.until((all) => all.some((d) => (JSON.parse(d.body.toString("utf8")) as { id: string }).id === id));
    try {
      // The endpoint's own creation is reported to it: authentication found no subscriber, but the activity adds one.
      const created = await server
        .client()
        .createWebhookEndpoint({ url: receiver.url, name: "renames", subscriptions: [{ eventType: "ACTIVITY_UPDATES" }] });
      await delivered(created.activity.id);
      store.statements = [];
      store.committedWith = [];
      const { activity } = await server.client().updateUserName({ userId: server.root.userId, userName: "Delivered" });
      expect(store.statements.filter((sql) => ACTIVITY_INSERT.test(sql))).toHaveLength(1);
      expect(store.committedWith).toEqual([]);
      await delivered(activity.id);
    } finally {
      await receiver.close();
    }
  });
});
