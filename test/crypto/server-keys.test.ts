import { p256 } from "@noble/curves/nist.js";
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { serverKeyFromSecret } from "../../src/crypto/server-keys.js";

describe("a server key from its secret", () => {
  it("has the public key @noble/curves computes, and signatures that verify under it (low S)", () => {
    for (let i = 0; i < 200; i++) {
      const secret = p256.utils.randomSecretKey();
      const key = serverKeyFromSecret(secret);
      expect(key.publicKeyHex).toBe(Buffer.from(p256.getPublicKey(secret, false)).toString("hex"));
      const message = randomBytes(40);
      const signature = key.signRaw(message);
      expect(p256.verify(signature, message, p256.getPublicKey(secret), { lowS: true })).toBe(true);
    }
  });

  it("refuses a secret that is not a P-256 private key", () => {
    expect(() => serverKeyFromSecret(new Uint8Array(32))).toThrow();
    expect(() => serverKeyFromSecret(Buffer.from(p256.Point.Fn.ORDER.toString(16), "hex"))).toThrow();
  });
});
