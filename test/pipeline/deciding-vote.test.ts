import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createUserWithApiKey } from "../helpers/users.js";

/**
 * An activity that waited for consensus runs at its deciding approval. What only its execution can find wrong
 * then — here a webhook URL whose host resolves to a loopback address, known only once it is resolved, which
 * happens at that approval — fails the activity with that error; the approval is kept and answered 200, instead
 * of the vote being refused with 400 and rolled back, which left the activity waiting for ever.
 */
describe("a failure found at the deciding approval", () => {
  let server: TestServer;
  let bob: ReturnType<TestServer["client"]>;

  beforeAll(async () => {
    server = await startTestServer();
    const { userId: bobId, credentials } = await createUserWithApiKey(server.client(), "bob");
    bob = server.client(credentials);
    await server.client().updateRootQuorum({ threshold: 2, userIds: [server.root.userId, bobId] });
  });
  afterAll(async () => server?.close());

  it("fails the activity with the error, and keeps the vote", async () => {
    const submitted = await server.client().createWebhookEndpoint({
      url: "https://localhost/hook",
      name: "decided later",
      subscriptions: [{ eventType: "ACTIVITY_UPDATES" }],
    });
    expect(submitted.activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");

    const approved = await bob.approveActivity({ fingerprint: submitted.activity.fingerprint });
    expect(approved.activity.id).toBe(submitted.activity.id);
    expect(approved.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(approved.activity.failure?.code).toBe(3);
    expect(approved.activity.failure?.message).toContain("url: the host localhost resolves to");
    expect(approved.activity.votes).toHaveLength(2);

    const stored = await server.client().getActivity({ activityId: submitted.activity.id });
    expect(stored.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(stored.activity.votes).toHaveLength(2);
    expect((await server.client().listWebhookEndpoints({})).webhookEndpoints).toEqual([]);
  });
});
