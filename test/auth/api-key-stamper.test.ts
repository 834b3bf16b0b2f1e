import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { verifyStampSignature } from "@turnkey/crypto";
import { describe, expect, it } from "vitest";
import { generateApiKeyPair, stampWithApiKey } from "../../src/auth/api-key-stamper.js";

describe("the server's own API-key stamper (used by the auth proxy)", () => {
  it("makes the X-Stamp @turnkey/api-key-stamper makes, which @turnkey/crypto verifies", async () => {
    const key = generateApiKeyPair();
    const body = JSON.stringify({
      type: "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8",
      organizationId: "org",
      parameters: {},
      timestampMs: "1",
    });
    const ours = JSON.parse(Buffer.from(stampWithApiKey(body, key), "base64url").toString()) as Record<string, string>;
    const official = new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: Buffer.from(key.privateKey).toString("hex") });
    const theirs = JSON.parse(Buffer.from((await official.stamp(body)).stampHeaderValue, "base64url").toString()) as Record<string, string>;
    expect(Object.keys(ours).sort()).toEqual(Object.keys(theirs).sort());
    expect(ours).toMatchObject({ publicKey: theirs.publicKey, scheme: theirs.scheme });
    await expect(verifyStampSignature(key.publicKey, ours.signature!, body)).resolves.toBe(true);
    await expect(verifyStampSignature(key.publicKey, ours.signature!, body + " ")).resolves.toBe(false);
  });
});
