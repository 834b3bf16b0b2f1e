import { ed25519 } from "@noble/curves/ed25519.js";
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ed25519Key } from "../../src/crypto/ed25519-key.js";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

describe("an Ed25519 key in node:crypto", () => {
  it("gives RFC 8032's first test vector", () => {
    const key = ed25519Key(Buffer.from("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60", "hex"));
    expect(hex(key.publicKey)).toBe("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
    expect(hex(key.sign(new Uint8Array()))).toBe(
      "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    );
  });

  it("gives the public keys and signatures @noble/curves gives, byte for byte", () => {
    for (let i = 0; i < 300; i++) {
      const secret = ed25519.utils.randomSecretKey();
      const message = randomBytes(i % 97);
      const key = ed25519Key(secret);
      expect(hex(key.publicKey)).toBe(hex(ed25519.getPublicKey(secret)));
      expect(hex(key.sign(message))).toBe(hex(ed25519.sign(message, secret)));
    }
  });

  it("refuses a secret that is not 32 bytes", () => {
    expect(() => ed25519Key(new Uint8Array(31))).toThrow(/32 bytes, not 31/);
  });
});
