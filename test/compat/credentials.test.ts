import { generateP256KeyPair } from "@turnkey/crypto";
import { TurnkeyRequestError } from "@turnkey/sdk-server";
import { SignJWT, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";

const p256Key = (name: string, expirationSeconds?: string) => {
  const pair = generateP256KeyPair();
  return {
    pair,
    params: {
      apiKeyName: name,
      publicKey: pair.publicKey,
      curveType: "API_KEY_CURVE_P256" as const,
      ...(expirationSeconds ? { expirationSeconds } : {}),
    },
  };
};

describe("API keys, OAuth providers and their limits through @turnkey/sdk-server", () => {
  let server: TestServer;
  let userId: string;
  /** How far the test has moved the server's clock past real time. */
  let clockAheadMs = 0;
  beforeAll(async () => {
    server = await startTestServer({ clock: () => new Date(Date.now() + clockAheadMs) });
    const { userIds } = await server.client().createUsers({
      users: [{ userName: "carol", apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }],
    });
    userId = userIds[0]!;
  });
  afterAll(async () => server.close());

  it("lists and deletes API keys of a user", async () => {
    const a = p256Key("a");
    const { apiKeyIds } = await server.client().createApiKeys({ userId, apiKeys: [a.params] });
    expect((await server.client().getApiKeys({ userId })).apiKeys.map((k) => k.apiKeyId)).toEqual(apiKeyIds);
    const deleted = await server.client().deleteApiKeys({ userId, apiKeyIds });
    expect(deleted.apiKeyIds).toEqual(apiKeyIds);
    expect((await server.client().getApiKeys({ userId })).apiKeys).toEqual([]);
    // Keys that no longer exist are bad input, refused at submission (issue 14).
    const missing = await server
      .client()
      .deleteApiKeys({ userId, apiKeyIds })
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(TurnkeyRequestError);
    expect((missing as TurnkeyRequestError).code).toBe(3);
    expect((missing as Error).message).toContain(`apiKeyIds[0]: no API key "${apiKeyIds[0]}"`);
  });

  it("refuses an 11th long-lived key and replaces the oldest expiring key beyond 10", async () => {
    const longLived = Array.from({ length: 10 }, (_, i) => p256Key(`long-${i}`).params);
    await server.client().createApiKeys({ userId, apiKeys: longLived });
    const eleventh = await server.client().createApiKeys({ userId, apiKeys: [p256Key("long-10").params] });
    expect(eleventh.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(eleventh.activity.failure?.message).toContain("maximum of 10 long-lived");

    const expiring = Array.from({ length: 10 }, (_, i) => p256Key(`exp-${i}`, "3600").params);
    const { apiKeyIds } = await server.client().createApiKeys({ userId, apiKeys: expiring });
    await server.client().createApiKeys({ userId, apiKeys: [p256Key("exp-10", "3600").params] });
    const ids = (await server.client().getApiKeys({ userId })).apiKeys.map((k) => k.apiKeyId);
    expect(ids).toHaveLength(20);
    expect(ids).not.toContain(apiKeyIds[0]);
    expect(ids).toContain(apiKeyIds[1]);
  });

  it("refuses an expired key at authentication with 401", async () => {
    const key = p256Key("short", "60");
    await server.client().createApiKeys({ userId: server.root.userId, apiKeys: [key.params] });
    const shortLived = server.client({ apiPublicKey: key.pair.publicKey, apiPrivateKey: key.pair.privateKey });
    expect((await shortLived.getWhoami({})).userId).toBe(server.root.userId);
    clockAheadMs = 60_000;
    const error = await shortLived.getWhoami({}).catch((e: unknown) => e);
    clockAheadMs = 0;
    expect(error).toBeInstanceOf(TurnkeyRequestError);
    expect((error as TurnkeyRequestError).code).toBe(16);
    expect((error as Error).message).toContain("expired");
  });

  it("links OIDC identities from a token or claims, refuses duplicates, and unlinks them", async () => {
    const { privateKey } = await generateKeyPair("ES256");
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: "ES256" })
      .setIssuer("https://issuer.example")
      .setSubject("user-1")
      .setAudience("client-1")
      .sign(privateKey);
    const created = await server.client().createOauthProviders({
      userId,
      oauthProviders: [
        { providerName: "from token", oidcToken: token },
        { providerName: "from claims", oidcClaims: { iss: "https://issuer.example", sub: "user-2", aud: "client-1" } },
      ],
    });
    expect(created.providerIds).toHaveLength(2);
    const { oauthProviders } = await server.client().getOauthProviders({ userId });
    expect(oauthProviders.find((p) => p.providerName === "from token")).toMatchObject({
      providerName: "from token",
      issuer: "https://issuer.example",
      subject: "user-1",
      audience: "client-1",
    });

    const duplicate = await server
      .client()
      .createOauthProviders({ userId: server.root.userId, oauthProviders: [{ providerName: "again", oidcToken: token }] });
    expect(duplicate.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(duplicate.activity.failure?.details).toContainEqual(
      expect.objectContaining({ turnkeyErrorCode: "OAUTH_PROVIDER_ALREADY_EXISTS" }),
    );

    await server.client().deleteOauthProviders({ userId, providerIds: created.providerIds });
    expect((await server.client().getOauthProviders({ userId })).oauthProviders).toEqual([]);
  });
});
