import { p256 } from "@noble/curves/nist.js";
import { encryptOauth2ClientSecret } from "@turnkey/crypto";
import { describe, expect, it } from "vitest";
import { InvalidEnvelopeError, openQuorumEnvelope } from "../../src/crypto/quorum-envelope.js";
import { serverKeyFromSecret } from "../../src/crypto/server-keys.js";

describe("QOS envelope (encryptOauth2ClientSecret)", () => {
  const key = serverKeyFromSecret(p256.utils.randomSecretKey());

  it("opens what @turnkey/crypto encrypts to the server's key, including non-ASCII secrets", async () => {
    for (const secret of ["s3cret-value", "ünïcødé 🔐 secret", "x".repeat(500)]) {
      const envelope = await encryptOauth2ClientSecret(secret, key.publicKeyHex);
      expect(new TextDecoder().decode(openQuorumEnvelope(envelope, key))).toBe(secret);
    }
  });

  it("refuses an envelope for another key, a tampered one, and garbage", async () => {
    const other = serverKeyFromSecret(p256.utils.randomSecretKey());
    const envelope = await encryptOauth2ClientSecret("secret", other.publicKeyHex);
    expect(() => openQuorumEnvelope(envelope, key)).toThrow(/not encrypted to this server's encryption key/);
    const mine = await encryptOauth2ClientSecret("secret", key.publicKeyHex);
    const flipped = mine.slice(0, -2) + (mine.endsWith("00") ? "01" : "00");
    expect(() => openQuorumEnvelope(flipped, key)).toThrow(InvalidEnvelopeError);
    expect(() => openQuorumEnvelope(mine.slice(0, 40), key)).toThrow(/too short/);
    expect(() => openQuorumEnvelope("not hex", key)).toThrow(/not hex/);
    expect(() => openQuorumEnvelope(mine + "00", key)).toThrow(/length does not match/);
  });
});
