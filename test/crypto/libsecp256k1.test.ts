import { secp256k1 } from "@noble/curves/secp256k1.js";
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { secp256k1ConvertPoint, secp256k1PublicKey } from "../../src/crypto/libsecp256k1.js";
import { signEcdsa } from "../../src/crypto/signing/curves.js";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const VECTORS = 3000;
const ORDER = secp256k1.Point.CURVE().n;
const scalar = (value: bigint) => Buffer.from(value.toString(16).padStart(64, "0"), "hex");

/** secp256k1 by libsecp256k1 (src/crypto/libsecp256k1.ts), held to @noble/curves as the oracle. */
describe("secp256k1 by libsecp256k1", () => {
  it(`signs as @noble/curves does (RFC 6979, low S, recovery id) on ${VECTORS} random keys and digests`, () => {
    const recoveryIds = new Set<string>();
    for (let i = 0; i < VECTORS; i++) {
      const key = secp256k1.utils.randomSecretKey();
      const digest = randomBytes(32);
      const oracle = secp256k1.sign(digest, key, { prehash: false, lowS: true, format: "recovered" });
      const signature = signEcdsa("CURVE_SECP256K1", digest, key);
      expect(signature).toEqual({ r: hex(oracle.slice(1, 33)), s: hex(oracle.slice(33)), v: `0${oracle[0]}` });
      recoveryIds.add(signature.v);
    }
    expect([...recoveryIds].sort()).toEqual(["00", "01"]);
  });

  it("signs digests at the edges (zero, the order, all ones) and keys at the edges (1, n − 1) as @noble/curves does", () => {
    const digests = [Buffer.alloc(32), scalar(ORDER), scalar(ORDER - 1n), Buffer.alloc(32, 0xff)];
    const keys = [scalar(1n), scalar(ORDER - 1n), scalar(2n ** 255n)];
    for (const digest of digests) {
      for (const key of keys) {
        const oracle = secp256k1.sign(digest, key, { prehash: false, lowS: true, format: "recovered" });
        expect(signEcdsa("CURVE_SECP256K1", digest, key), `${hex(digest)} ${hex(key)}`).toEqual({
          r: hex(oracle.slice(1, 33)),
          s: hex(oracle.slice(33)),
          v: `0${oracle[0]}`,
        });
      }
    }
  });

  it(`computes public keys, compressed and not, and converts between the forms, as @noble/curves does on ${VECTORS} keys`, () => {
    for (let i = 0; i < VECTORS; i++) {
      const key = secp256k1.utils.randomSecretKey();
      const compressed = secp256k1.getPublicKey(key, true);
      const uncompressed = secp256k1.getPublicKey(key, false);
      expect(hex(secp256k1PublicKey(key))).toBe(hex(compressed));
      expect(hex(secp256k1PublicKey(key, false))).toBe(hex(uncompressed));
      expect(hex(secp256k1ConvertPoint(compressed, false))).toBe(hex(uncompressed));
      expect(hex(secp256k1ConvertPoint(uncompressed, true))).toBe(hex(compressed));
    }
  });

  it("refuses what is not a private key or a point", () => {
    for (const key of [Buffer.alloc(32), scalar(ORDER), Buffer.alloc(32, 0xff), Buffer.alloc(31, 1)]) {
      expect(() => secp256k1PublicKey(key)).toThrow();
      expect(() => signEcdsa("CURVE_SECP256K1", randomBytes(32), key)).toThrow();
    }
    // About half of all x coordinates have no point on the curve: the first few @noble/curves refuses.
    let refused = 0;
    while (refused < 5) {
      const candidate = Buffer.concat([Buffer.of(2), randomBytes(32)]);
      let onCurve = true;
      try {
        secp256k1.Point.fromBytes(candidate);
      } catch {
        onCurve = false;
      }
      if (onCurve) continue;
      expect(() => secp256k1ConvertPoint(candidate, false), hex(candidate)).toThrow();
      refused++;
    }
    expect(() => secp256k1ConvertPoint(Buffer.alloc(32, 2), false)).toThrow();
  });
});
