import { verifyTurnkeyWebhookSignature } from "@turnkey/crypto";
import { generateP256KeyPair } from "@turnkey/crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { refusal } from "../helpers/refusal.js";
import { p256Stamp, post } from "../helpers/requests.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { startWebhookReceiver, type ReceivedDelivery } from "../helpers/webhook-receiver.js";

const FAST = {
  STRONGROOM_WEBHOOK_ALLOW_PRIVATE: "1",
  STRONGROOM_WEBHOOK_POLL_MS: "20",
  STRONGROOM_WEBHOOK_RETRY_BASE_MS: "30",
  STRONGROOM_WEBHOOK_MAX_ATTEMPTS: "4",
  STRONGROOM_WEBHOOK_TIMEOUT_MS: "2000",
};

async function verificationKeys(server: TestServer) {
  const jwks = (await (await fetch(`${server.url}/public/v1/discovery/webhooks/jwks`)).json()) as { keys: { kid: string; x: string }[] };
  return jwks.keys.map((k) => ({ keyId: k.kid, publicKey: Buffer.from(k.x, "base64url").toString("hex") }));
}

/** list_webhook_deliveries is Strongroom's own query, so no SDK method calls it: a stamped POST does. */
async function deliveriesOf(server: TestServer, endpointId: string) {
  const body = JSON.stringify({ organizationId: server.root.organizationId, endpointId });
  const response = await post(`${server.url}/public/v1/query/list_webhook_deliveries`, body, {
    "X-Stamp": p256Stamp(body, server.root.apiPublicKey, server.root.apiPrivateKey!),
  });
  return (response.json as { deliveries: { status: string; attempts: number; lastStatusCode?: number; eventId: string }[] }).deliveries;
}

const activityOf = (delivery: ReceivedDelivery) =>
  JSON.parse(delivery.body.toString("utf8")) as { id: string; type: string; status: string; organizationId: string };

describe("webhook deliveries", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: FAST });
  });
  afterAll(async () => server.close());

  it("are signed so the official verifier accepts them, with the documented headers and the activity as body", async () => {
    const receiver = await startWebhookReceiver();
    try {
      const { endpointId, webhookEndpoint } = await server
        .client()
        .createWebhookEndpoint({ url: receiver.url, name: "all activity", subscriptions: [{ eventType: "ACTIVITY_UPDATES" }] });
      expect(webhookEndpoint).toMatchObject({
        endpointId,
        url: receiver.url,
        isActive: true,
        subscriptions: [{ eventType: "ACTIVITY_UPDATES", isActive: true }],
      });
      const { activity } = await server.client().createUserTag({ userTagName: "hooked", userIds: [] });
      const delivery = (await receiver.until((all) => all.some((d) => activityOf(d).id === activity.id))).find(
        (d) => activityOf(d).id === activity.id,
      );
      const verified = verifyTurnkeyWebhookSignature({
        headers: delivery!.headers as never,
        body: delivery!.body,
        verificationKeys: await verificationKeys(server),
        maxTimestampAgeMs: 300_000,
      });
      expect(verified.ok).toBe(true);
      expect(delivery!.headers).toMatchObject({
        "x-turnkey-organization-id": server.root.organizationId,
        "x-turnkey-event-type": "ACTIVITY_UPDATES",
        "x-turnkey-webhook-version": "1",
        "x-turnkey-signature-algorithm": "ed25519",
        "x-turnkey-signature-version": "v1",
        "content-type": "application/json",
      });
      expect(activityOf(delivery!)).toMatchObject({
        id: activity.id,
        status: "ACTIVITY_STATUS_COMPLETED",
        type: "ACTIVITY_TYPE_CREATE_USER_TAG",
      });
      const tampered = verifyTurnkeyWebhookSignature({
        headers: delivery!.headers as never,
        body: Buffer.from(delivery!.body.toString().replace("hooked", "hacked")),
        verificationKeys: await verificationKeys(server),
        maxTimestampAgeMs: 300_000,
      });
      expect(tampered.ok).toBe(false);
      await server.client().deleteWebhookEndpoint({ endpointId });
    } finally {
      await receiver.close();
    }
  });

  it("retry 5xx until one success, keeping the event id; 4xx is final", async () => {
    const flaky = await startWebhookReceiver((i) => (i < 2 ? 503 : 200));
    const rejecting = await startWebhookReceiver(() => 404);
    try {
      const a = await server.client().createWebhookEndpoint({
        url: flaky.url,
        name: "flaky",
        subscriptions: [
          { eventType: "ACTIVITY_UPDATES", filtersJson: JSON.stringify({ activityTypes: ["ACTIVITY_TYPE_UPDATE_USER_NAME"] }) },
        ],
      });
      const b = await server
        .client()
        .createWebhookEndpoint({ url: rejecting.url, name: "rejecting", subscriptions: [{ eventType: "ACTIVITY_UPDATES" }] });
      await server.client().createUserTag({ userTagName: "filtered out", userIds: [] });
      await server.client().updateUserName({ userId: server.root.userId, userName: "Root user renamed" });
      const all = [...(await flaky.until((d) => d.some((x) => x.status === 200)))];
      expect(all.map((d) => d.status)).toEqual([503, 503, 200]);
      expect(new Set(all.map((d) => d.headers["x-turnkey-event-id"])).size).toBe(1);
      expect(all.every((d) => activityOf(d).type === "ACTIVITY_TYPE_UPDATE_USER_NAME")).toBe(true);

      // Nothing more is sent for those events: a later rename is queued behind them on both endpoints, and an
      // endpoint's events go out in order, so it arrives only once nothing earlier is still due there.
      const { activity: later } = await server.client().updateUserName({ userId: server.root.userId, userName: "Root user renamed again" });
      const isLater = (d: ReceivedDelivery) => activityOf(d).id === later.id;
      await flaky.until((d) => d.some(isLater));
      await rejecting.until((d) => d.some(isLater));
      expect(flaky.received.map((d) => d.status)).toEqual([503, 503, 200, 200]);
      expect(isLater(flaky.received[3]!)).toBe(true);

      // Its own creation, the tag and the rename: each tried once (then the later rename).
      expect(rejecting.received).toHaveLength(4);
      expect(new Set(rejecting.received.map((d) => d.headers["x-turnkey-event-id"])).size).toBe(4);
      expect(isLater(rejecting.received[3]!)).toBe(true);
      // The worker records an attempt once its answer is in, a moment after the receiver has it.
      await vi.waitFor(
        async () => {
          const rejected = await deliveriesOf(server, b.endpointId);
          expect(rejected).toHaveLength(4);
          expect(rejected.every((d) => d.status === "DELIVERY_STATUS_FAILED" && d.attempts === 1 && d.lastStatusCode === 404)).toBe(true);
          expect(await deliveriesOf(server, a.endpointId)).toEqual([
            expect.objectContaining({
              status: "DELIVERY_STATUS_DELIVERED",
              attempts: 1,
              eventId: flaky.received[3]!.headers["x-turnkey-event-id"],
            }),
            expect.objectContaining({ status: "DELIVERY_STATUS_DELIVERED", attempts: 3, eventId: all[0]!.headers["x-turnkey-event-id"] }),
          ]);
        },
        { timeout: 10_000, interval: 50 },
      );
    } finally {
      // Gone whatever happened, so that no later test sees them.
      for (const endpoint of await server
        .client()
        .listWebhookEndpoints({})
        .then((r) => r.webhookEndpoints))
        if (endpoint.name === "flaky" || endpoint.name === "rejecting")
          await server.client().deleteWebhookEndpoint({ endpointId: endpoint.endpointId });
      await flaky.close();
      await rejecting.close();
    }
  });

  it("deliver a sub-organization's activity to its parent's endpoint, and nothing for a paused endpoint or a rolled-back activity", async () => {
    const receiver = await startWebhookReceiver();
    try {
      const { endpointId } = await server
        .client()
        .createWebhookEndpoint({ url: receiver.url, name: "parent", subscriptions: [{ eventType: "ACTIVITY_UPDATES" }] });
      const key = generateP256KeyPair();
      const sub = await server.client().createSubOrganization({
        subOrganizationName: "child",
        rootQuorumThreshold: 1,
        rootUsers: [
          {
            userName: "child root",
            apiKeys: [{ apiKeyName: "k", publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }],
            authenticators: [],
            oauthProviders: [],
          },
        ],
      });
      const child = server.client({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }, sub.subOrganizationId);
      const { activity } = await child.createUserTag({ userTagName: "child tag", userIds: [] });
      const delivery = (await receiver.until((all) => all.some((d) => activityOf(d).id === activity.id))).find(
        (d) => activityOf(d).id === activity.id,
      );
      expect(activityOf(delivery!).organizationId).toBe(sub.subOrganizationId);
      expect(delivery!.headers["x-turnkey-organization-id"]).toBe(server.root.organizationId);

      await refusal(server.client().createUserTag({ userTagName: "", userIds: [] }));
      await server.client().updateWebhookEndpoint({ endpointId, isActive: false });
      await server.client().createUserTag({ userTagName: "while paused", userIds: [] });
      // Resumed, one more tag: an endpoint's events go out in order, so had the refused or the paused one been
      // queued, it would arrive before this one.
      await server.client().updateWebhookEndpoint({ endpointId, isActive: true });
      const { activity: resumed } = await server.client().createUserTag({ userTagName: "after resuming", userIds: [] });
      await receiver.until((all) => all.some((d) => activityOf(d).id === resumed.id));
      const tagsDelivered = receiver.received.map(activityOf).filter((a) => a.type === "ACTIVITY_TYPE_CREATE_USER_TAG");
      expect(tagsDelivered.map((a) => a.id)).toEqual([activity.id, resumed.id]);
      await server.client().deleteWebhookEndpoint({ endpointId });
    } finally {
      await receiver.close();
    }
  });

  it("refuse bad filters and URLs with credentials, and serve the JWKS unauthenticated", async () => {
    const badFilter = await refusal(
      server.client().createWebhookEndpoint({
        url: "http://127.0.0.1:9/x",
        name: "x",
        subscriptions: [{ eventType: "ACTIVITY_UPDATES", filtersJson: "{not json" }],
      }),
    );
    expect(badFilter.code).toBe(3);
    expect(badFilter.message).toContain("subscriptions[0].filtersJson");
    const unknownKey = await refusal(
      server.client().createWebhookEndpoint({
        url: "http://127.0.0.1:9/x",
        name: "x",
        subscriptions: [{ eventType: "ACTIVITY_UPDATES", filtersJson: '{"addresses": []}' }],
      }),
    );
    expect(unknownKey.message).toContain("unknown filter");
    const credentials = await refusal(
      server
        .client()
        .createWebhookEndpoint({ url: "http://user:pw@127.0.0.1:9/x", name: "x", subscriptions: [{ eventType: "ACTIVITY_UPDATES" }] }),
    );
    expect(credentials.message).toContain("credentials");
    const response = await fetch(`${server.url}/public/v1/discovery/webhooks/jwks`);
    expect(response.headers.get("cache-control")).toContain("max-age=86400");
    expect(((await response.json()) as { keys: unknown[] }).keys[0]).toMatchObject({
      kty: "OKP",
      crv: "Ed25519",
      alg: "EdDSA",
      use: "sig",
      turnkey_signature_algorithm: "ed25519",
    });
    expect((await server.client().listWebhookEndpoints({})).webhookEndpoints).toEqual([]);
  });
});

describe("webhook destinations without STRONGROOM_WEBHOOK_ALLOW_PRIVATE", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  it("must be https and public", async () => {
    for (const [url, why] of [
      ["http://example.com/hook", "https"],
      ["https://127.0.0.1/hook", "loopback, private"],
      ["https://10.1.2.3/hook", "loopback, private"],
      ["https://169.254.169.254/latest", "loopback, private"],
      ["https://[::1]/hook", "loopback, private"],
      ["https://localhost/hook", "loopback, private"],
    ] as const) {
      const refused = await refusal(
        server.client().createWebhookEndpoint({ url, name: "x", subscriptions: [{ eventType: "ACTIVITY_UPDATES" }] }),
      );
      expect(refused.code, url).toBe(3);
      expect(refused.message, url).toContain(why);
    }
  });
});

describe("webhook destinations at dial time", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { STRONGROOM_WEBHOOK_POLL_MS: "20", STRONGROOM_WEBHOOK_MAX_ATTEMPTS: "1" } });
  });
  afterAll(async () => server.close());

  it("are resolved again when the worker connects, so a name that now points inside is not dialled", async () => {
    const receiver = await startWebhookReceiver();
    try {
      // As if the name had resolved to a public address when the endpoint was created.
      const url = receiver.url.replace("127.0.0.1", "localhost");
      await server.services.db.query(
        "INSERT INTO webhook_endpoints (id, organization_id, url, name, created_at, updated_at) VALUES ('e1', $1, $2, 'rebound', now(), now())",
        [server.root.organizationId, url],
      );
      await server.services.db.query(
        "INSERT INTO webhook_subscriptions (endpoint_id, position, event_type) VALUES ('e1', 0, 'ACTIVITY_UPDATES')",
      );
      await server.client().createUserTag({ userTagName: "not for localhost", userIds: [] });
      const deadline = Date.now() + 5000;
      let deliveries = await deliveriesOf(server, "e1");
      while (deliveries[0]?.status !== "DELIVERY_STATUS_FAILED" && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        deliveries = await deliveriesOf(server, "e1");
      }
      expect(deliveries[0]).toMatchObject({ status: "DELIVERY_STATUS_FAILED" });
      expect((deliveries[0] as unknown as { lastError: string }).lastError).toContain("loopback");
      expect(receiver.received).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});
