import { generateP256KeyPair } from "@turnkey/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refusal } from "../helpers/refusal.js";
import { p256Stamp, post } from "../helpers/requests.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("IP allowlists", () => {
  let server: TestServer;
  let untrusted: TestServer;
  let second: { publicKey: string; privateKey: string };
  beforeAll(async () => {
    // The test's requests come from 127.0.0.1, trusted as a proxy: X-Forwarded-For says who the client is.
    server = await startTestServer({ env: { TRUST_PROXY: "127.0.0.1" } });
    untrusted = await startTestServer();
    const key = generateP256KeyPair();
    second = { publicKey: key.publicKey, privateKey: key.privateKey };
    await server.client().createApiKeys({
      userId: server.root.userId,
      apiKeys: [{ apiKeyName: "second", publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }],
    });
  });
  afterAll(async () => {
    await server.close();
    await untrusted.close();
  });

  const whoamiFrom = async (target: TestServer, key: { publicKey: string; privateKey: string }, forwardedFor?: string) => {
    const body = JSON.stringify({ organizationId: target.root.organizationId });
    return post(`${target.url}/public/v1/query/whoami`, body, {
      "X-Stamp": p256Stamp(body, key.publicKey, key.privateKey),
      ...(forwardedFor ? { "X-Forwarded-For": forwardedFor } : {}),
    });
  };
  const rootKey = () => ({ publicKey: server.root.apiPublicKey, privateKey: server.root.apiPrivateKey! });

  it("refuses bad rules with 400 naming the index, and normalizes and de-duplicates good ones", async () => {
    for (const [cidr, why] of [
      ["300.1.1.1/24", "not a CIDR"],
      ["10.0.0.0/8", "broader than"],
      ["2001:db8::/32", "broader than"],
      ["1.2.3.4", "not a CIDR"],
    ] as const) {
      const refused = await refusal(server.client().setIpAllowlist({ enabled: false, rules: [{ cidr: "127.0.0.1/32" }, { cidr }] }));
      expect(refused.message).toContain("rules[1].cidr");
      expect(refused.message).toContain(why);
    }
    await server.client().setIpAllowlist({
      enabled: false,
      rules: [
        { cidr: "203.0.113.100/24", label: "office" },
        { cidr: "203.0.113.0/24", label: "duplicate" },
        { cidr: "2001:db8:1:2::5/64", label: "v6" },
      ],
    });
    const { allowlist } = await server.client().getIpAllowlist({});
    expect(allowlist).toMatchObject({ organizationId: server.root.organizationId, enabled: false, onEvaluationError: "DENY" });
    expect(allowlist.rules.map((r) => [r.cidr, r.label])).toEqual([
      ["203.0.113.0/24", "office"],
      ["2001:db8:1:2::/64", "v6"],
    ]);
  });

  it("checks every API-key request against the key's rules, else the organization's, once enabled", async () => {
    expect((await whoamiFrom(server, rootKey(), "198.51.100.1")).status).toBe(200); // not enabled yet
    await server.client().setIpAllowlist({
      enabled: true,
      rules: [
        { cidr: "127.0.0.1/32", label: "test runner" },
        { cidr: "203.0.113.0/24", label: "office" },
      ],
    });
    expect((await whoamiFrom(server, rootKey(), "203.0.113.7")).status).toBe(200);
    const refused = await whoamiFrom(server, rootKey(), "198.51.100.1");
    expect(refused.status).toBe(403);
    expect(String(refused.json.message)).toContain("198.51.100.1");
    expect(String(refused.json.message)).toContain(`organization ${server.root.organizationId}`);

    await server.client().setIpAllowlist({ publicKey: second.publicKey, rules: [{ cidr: "198.51.100.0/24" }] });
    expect((await whoamiFrom(server, second, "198.51.100.5")).status).toBe(200);
    const keyRefused = await whoamiFrom(server, second, "203.0.113.7");
    expect(keyRefused.status).toBe(403);
    expect(String(keyRefused.json.message)).toContain("API key");
    // A key-level list without rules falls back to the organization's.
    await server.client().setIpAllowlist({ publicKey: second.publicKey, rules: [] });
    expect((await whoamiFrom(server, second, "203.0.113.7")).status).toBe(200);
    await server.client().removeIpAllowlist({ publicKey: second.publicKey });
    expect((await server.client().getIpAllowlist({ publicKey: second.publicKey })).allowlist.rules).toEqual([]);
  });

  it("believes X-Forwarded-For only from a trusted proxy", async () => {
    const key = { publicKey: untrusted.root.apiPublicKey, privateKey: untrusted.root.apiPrivateKey! };
    await untrusted.client().setIpAllowlist({ enabled: true, rules: [{ cidr: "203.0.113.0/24" }] });
    const forged = await whoamiFrom(untrusted, key, "203.0.113.7");
    expect(forged.status).toBe(403);
    expect(String(forged.json.message)).toContain("127.0.0.1");
  });

  it("applies to parent organizations only, and an enabled list with no rules blocks everything", async () => {
    const subKey = generateP256KeyPair();
    const sub = await server.client().createSubOrganization({
      subOrganizationName: "not allowlisted",
      rootQuorumThreshold: 1,
      rootUsers: [
        {
          userName: "r",
          apiKeys: [{ apiKeyName: "k", publicKey: subKey.publicKey, curveType: "API_KEY_CURVE_P256" }],
          authenticators: [],
          oauthProviders: [],
        },
      ],
    });
    const subClient = server.client({ apiPublicKey: subKey.publicKey, apiPrivateKey: subKey.privateKey }, sub.subOrganizationId);
    expect((await subClient.getWhoami({})).organizationId).toBe(sub.subOrganizationId);
    const refused = await subClient.setIpAllowlist({ enabled: true, rules: [] });
    expect(refused.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(refused.activity.failure?.message).toContain("sub-organization");

    await server.client().setIpAllowlist({ enabled: true, rules: [] });
    expect((await whoamiFrom(server, rootKey())).status).toBe(403);
    expect((await subClient.getWhoami({})).organizationId).toBe(sub.subOrganizationId);
  });
});
