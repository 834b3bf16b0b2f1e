import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isPublicAddress } from "../../src/domains/webhooks/destinations.js";
import { refusal } from "../helpers/refusal.js";
import { p256Stamp, post } from "../helpers/requests.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { startWebhookReceiver } from "../helpers/webhook-receiver.js";

/** Teredo: server IPv4 in bits 32–64, client IPv4 XOR 0xffffffff in the last 32 bits (RFC 4380). */
function teredo(server: string, client: string): string {
  const hex = (ip: string, xor = 0) => {
    const n = (ip.split(".").reduce((acc, octet) => acc * 256 + Number(octet), 0) ^ xor) >>> 0;
    return `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  };
  return `2001:0:${hex(server)}:8000:63bf:${hex(client, 0xffffffff)}`;
}

const PUBLIC_V4 = ["8.8.8.8", "1.1.1.1", "93.184.216.34", "151.101.1.69"];
const PRIVATE_V4 = [
  "0.0.0.0",
  "0.1.2.3",
  "10.0.0.1",
  "100.64.0.1",
  "127.0.0.1",
  "169.254.169.254",
  "172.16.0.1",
  "172.31.255.255",
  "192.0.0.1",
  "192.168.1.1",
  "198.18.0.1",
  "224.0.0.1",
  "240.0.0.1",
  "255.255.255.255",
];

/** Every IPv6 form that embeds an IPv4 address, built around the given IPv4 address. */
const EMBEDDINGS: Record<string, (v4: string) => string> = {
  "IPv4-mapped ::ffff:0:0/96": (v4) => `::ffff:${v4}`,
  "IPv4-compatible ::/96": (v4) => `::${v4}`,
  "IPv4-translated ::ffff:0:0:0/96": (v4) => `::ffff:0:${v4}`,
  "NAT64 64:ff9b::/96": (v4) => `64:ff9b::${v4}`,
  "6to4 2002::/16": (v4) => {
    const [a, b, c, d] = v4.split(".").map(Number) as [number, number, number, number];
    return `2002:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}::1`;
  },
  "Teredo 2001::/32, client": (v4) => teredo("65.54.227.120", v4),
  "Teredo 2001::/32, server": (v4) => teredo(v4, "8.8.4.4"),
};

describe("the webhook destination rule (isPublicAddress)", () => {
  it("accepts public IPv4 addresses and refuses loopback, private, link-local, CGNAT, reserved, multicast and broadcast ones", () => {
    for (const address of PUBLIC_V4) expect(isPublicAddress(address), address).toBe(true);
    for (const address of PRIVATE_V4) expect(isPublicAddress(address), address).toBe(false);
  });

  it("decodes the IPv4 address every embedding form carries and judges it by the IPv4 rules", () => {
    for (const [form, embed] of Object.entries(EMBEDDINGS)) {
      for (const v4 of PUBLIC_V4) expect(isPublicAddress(embed(v4)), `${form}: ${embed(v4)} (${v4})`).toBe(true);
      for (const v4 of PRIVATE_V4) expect(isPublicAddress(embed(v4)), `${form}: ${embed(v4)} (${v4})`).toBe(false);
    }
  });

  it("matches known vectors of each form, in hex as well as dotted spellings", () => {
    const vectors: Array<[string, boolean]> = [
      ["::ffff:7f00:1", false],
      ["::ffff:808:808", true],
      ["::7f00:1", false],
      ["::a00:1", false],
      ["::1", false],
      ["::", false],
      ["::ffff:0:a9fe:a9fe", false],
      ["64:ff9b::a9fe:a9fe", false],
      ["64:ff9b::808:808", true],
      ["2002:a9fe:a9fe::", false],
      ["2002:c0a8:101:1::1", false],
      ["2002:808:808:1::1", true],
      // RFC 4380's example: server 65.54.227.120, client 192.0.2.45 (a documentation address) — refused.
      ["2001:0000:4136:e378:8000:63bf:3fff:fdd2", false],
      // Same server, client 8.8.8.8 — public.
      ["2001:0:4136:e378:8000:63bf:f7f7:f7f7", true],
      // Client 127.0.0.1 (obfuscated 80ff:fffe).
      ["2001:0:4136:e378:8000:63bf:80ff:fffe", false],
      // Server 10.0.0.1.
      ["2001:0:a00:1:8000:63bf:f7f7:f7f7", false],
    ];
    for (const [address, expected] of vectors) expect(isPublicAddress(address), address).toBe(expected);
  });

  it("refuses the local-use NAT64 prefix 64:ff9b:1::/48 whatever it embeds, and every non-global IPv6 range", () => {
    for (const address of [
      "64:ff9b:1::808:808",
      "64:ff9b:1:808:8:800::",
      "64:ff9b:1::a00:1",
      "fec0::1",
      "feff::1",
      "fe80::1",
      "fc00::1",
      "fd12:3456::1",
      "ff02::1",
      "100::1",
      "2001:db8::1",
      "2001:2::1",
      "2001:10::1",
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
    for (const address of ["2606:4700:4700::1111", "2001:4860:4860::8888", "2a00:1450:4001:81a::200e"])
      expect(isPublicAddress(address), address).toBe(true);
  });

  it("refuses what is not an IP address", () => {
    for (const text of ["", "localhost", "8.8.8", "0x08080808", "8.8.8.8.8", "::ffff:8.8.8.256", "1:2:3:4:5:6:7:8:9"])
      expect(isPublicAddress(text), text).toBe(false);
  });
});

describe("create_webhook_endpoint without STRONGROOM_WEBHOOK_ALLOW_PRIVATE", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  it("accepts an https URL to a public IPv4 literal (IPv4 and IPv4-mapped IPv6)", async () => {
    for (const url of ["https://8.8.8.8/hook", "https://[::ffff:1.1.1.1]/hook", "https://[2002:808:808::1]/hook"]) {
      // Subscribed to an activity type this test never runs, so nothing is sent to the address.
      const created = await server.client().createWebhookEndpoint({
        url,
        name: url,
        subscriptions: [
          { eventType: "ACTIVITY_UPDATES", filtersJson: JSON.stringify({ activityTypes: ["ACTIVITY_TYPE_SIGN_TRANSACTION_V2"] }) },
        ],
      });
      expect(created.endpointId, url).toEqual(expect.any(String));
      await server.client().deleteWebhookEndpoint({ endpointId: created.endpointId });
    }
  });

  it("refuses IPv6 literals that embed a private IPv4 address, and site-local ones, with 400 naming the address", async () => {
    for (const host of [
      "::ffff:127.0.0.1",
      "::127.0.0.1",
      "::ffff:0:a00:1",
      "64:ff9b::a9fe:a9fe",
      "64:ff9b:1::a00:1",
      "2002:a00:1::1",
      "2001:0:4136:e378:8000:63bf:80ff:fffe",
      "fec0::1",
    ]) {
      const refused = await refusal(
        server
          .client()
          .createWebhookEndpoint({ url: `https://[${host}]/hook`, name: "inside", subscriptions: [{ eventType: "ACTIVITY_UPDATES" }] }),
      );
      expect(refused.code, host).toBe(3);
      expect(refused.message, host).toContain("loopback, private");
    }
    expect((await server.client().listWebhookEndpoints({})).webhookEndpoints).toEqual([]);
  });
});

describe("webhook destinations at dial time, for IP literals", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { STRONGROOM_WEBHOOK_POLL_MS: "20", STRONGROOM_WEBHOOK_MAX_ATTEMPTS: "1" } });
  });
  afterAll(async () => server.close());

  it("does not dial an endpoint whose stored URL is a loopback literal (no DNS lookup to hook into)", async () => {
    const receiver = await startWebhookReceiver();
    try {
      // As if the endpoint had been created while STRONGROOM_WEBHOOK_ALLOW_PRIVATE was set.
      await server.services.db.query(
        "INSERT INTO webhook_endpoints (id, organization_id, url, name, created_at, updated_at) VALUES ('e1', $1, $2, 'literal', now(), now())",
        [server.root.organizationId, receiver.url],
      );
      await server.services.db.query(
        "INSERT INTO webhook_subscriptions (endpoint_id, position, event_type) VALUES ('e1', 0, 'ACTIVITY_UPDATES')",
      );
      await server.client().createUserTag({ userTagName: "not for loopback", userIds: [] });
      const body = JSON.stringify({ organizationId: server.root.organizationId, endpointId: "e1" });
      const deliveries = async () =>
        (
          (
            await post(`${server.url}/public/v1/query/list_webhook_deliveries`, body, {
              "X-Stamp": p256Stamp(body, server.root.apiPublicKey, server.root.apiPrivateKey!),
            })
          ).json as { deliveries: { status: string; lastError?: string }[] }
        ).deliveries;
      const deadline = Date.now() + 5000;
      let seen = await deliveries();
      while (seen[0]?.status !== "DELIVERY_STATUS_FAILED" && seen[0]?.status !== "DELIVERY_STATUS_DELIVERED" && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        seen = await deliveries();
      }
      expect(seen[0]).toMatchObject({ status: "DELIVERY_STATUS_FAILED" });
      expect(seen[0]!.lastError).toContain("loopback");
      expect(receiver.received).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});
