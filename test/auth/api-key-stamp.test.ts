import { p256 } from "@noble/curves/nist.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { p256Stamp, post } from "../helpers/requests.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/** A P-256 key pair whose compressed public key is also a point of secp256k1, so it may be registered as either. */
function p256KeyAlsoOnSecp256k1(): { publicKey: string; privateKey: string } {
  for (;;) {
    const secret = p256.utils.randomSecretKey();
    const publicKey = bytesToHex(p256.getPublicKey(secret, true));
    try {
      secp256k1.Point.fromHex(publicKey);
      return { publicKey, privateKey: bytesToHex(secret) };
    } catch {
      // not on secp256k1: try another
    }
  }
}

describe("API key stamps: the key as registered", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  it("refuses (401) a stamp whose scheme does not fit the curve the key was registered with, though its signature verifies", async () => {
    const key = p256KeyAlsoOnSecp256k1();
    await server.client().createApiKeys({
      userId: server.root.userId,
      apiKeys: [{ apiKeyName: "registered as secp256k1", publicKey: key.publicKey, curveType: "API_KEY_CURVE_SECP256K1" }],
    });
    const body = JSON.stringify({ organizationId: server.root.organizationId });
    const { status, json } = await post(`${server.url}/public/v1/query/whoami`, body, {
      "X-Stamp": p256Stamp(body, key.publicKey, key.privateKey),
    });
    expect(status).toBe(401);
    expect(json).toMatchObject({
      code: 16,
      message: expect.stringMatching(/does not fit API key .*whose curve is API_KEY_CURVE_SECP256K1/),
    });
  });
});
