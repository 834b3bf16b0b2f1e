import { generateP256KeyPair } from "@turnkey/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refusal } from "../helpers/refusal.js";
import { rowCounts } from "../helpers/row-counts.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("create_api_keys and get_api_key through @turnkey/sdk-server", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  it("creates a key the new holder can then use", async () => {
    const pair = generateP256KeyPair();
    const created = await server.client().createApiKeys({
      userId: server.root.userId,
      apiKeys: [{ apiKeyName: "ci", publicKey: pair.publicKey, curveType: "API_KEY_CURVE_P256", expirationSeconds: "3600" }],
    });
    expect(created.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(created.activity.type).toBe("ACTIVITY_TYPE_CREATE_API_KEYS_V2");
    expect(created.activity.intent).toHaveProperty("createApiKeysIntentV2.userId", server.root.userId);
    expect(created.activity.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(created.apiKeyIds).toHaveLength(1);

    const asNewKey = server.client({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey });
    const { apiKey } = await asNewKey.getApiKey({ apiKeyId: created.apiKeyIds[0]! });
    expect(apiKey).toMatchObject({
      apiKeyId: created.apiKeyIds[0],
      apiKeyName: "ci",
      credential: { publicKey: pair.publicKey, type: "CREDENTIAL_TYPE_API_KEY_P256" },
      expirationSeconds: "3600",
    });
    expect(apiKey.createdAt).toEqual({ seconds: expect.stringMatching(/^\d+$/), nanos: expect.stringMatching(/^\d+$/) });
  });

  // A user that does not exist is bad input, refused at submission (issue 14): no activity either.
  it("refuses with 400, writing nothing, a user that does not exist", async () => {
    const pair = generateP256KeyPair();
    const before = await rowCounts(server.services.db);
    const refused = await refusal(
      server.client().createApiKeys({
        userId: "no-such-user",
        apiKeys: [{ apiKeyName: "x", publicKey: pair.publicKey, curveType: "API_KEY_CURVE_P256" }],
      }),
    );
    expect(refused.code).toBe(3);
    expect(refused.message).toContain('userId: no user "no-such-user"');
    expect(await rowCounts(server.services.db)).toEqual(before);
  });
});
