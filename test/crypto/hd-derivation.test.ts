import { ed25519 } from "@noble/curves/ed25519.js";
import { p256 } from "@noble/curves/nist.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { hmac } from "@noble/hashes/hmac.js";
import { sha512 } from "@noble/hashes/sha2.js";
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { derivePath } from "ed25519-hd-key";
import { randomBytes } from "node:crypto";
import { privateKeyToAccount, mnemonicToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { deriveKey } from "../../src/crypto/hd/derive.js";
import { parsePath } from "../../src/crypto/hd/path.js";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const vectorSeed = new Uint8Array(Buffer.from("000102030405060708090a0b0c0d0e0f", "hex"));
const mnemonic = "test test test test test test test test test test test junk";

describe("HD derivation", () => {
  it("follows BIP-32 test vector 1 on secp256k1", () => {
    const key = deriveKey(vectorSeed, "CURVE_SECP256K1", "m/0'/1/2'/2/1000000000");
    expect(hex(key.privateKey)).toBe("471b76e389e528d6de6d816857e012c5455051cad6660850e58372a6c3e6e7c8");
  });

  it("derives the same Ethereum accounts as viem from a BIP-39 mnemonic", () => {
    const seed = mnemonicToSeedSync(mnemonic);
    for (const index of [0, 1, 7]) {
      const key = deriveKey(seed, "CURVE_SECP256K1", `m/44'/60'/0'/0/${index}`);
      expect(privateKeyToAccount(`0x${hex(key.privateKey)}`).address).toBe(mnemonicToAccount(mnemonic, { addressIndex: index }).address);
    }
  });

  it("follows SLIP-0010 for Ed25519, as ed25519-hd-key does", () => {
    const seed = mnemonicToSeedSync(mnemonic);
    for (const path of ["m/44'/501'/0'/0'", "m/44'/784'/0'/0'/0'", "m/0'"]) {
      expect(hex(deriveKey(seed, "CURVE_ED25519", path).privateKey)).toBe(hex(derivePath(path, hex(seed)).key));
    }
    expect(hex(deriveKey(vectorSeed, "CURVE_ED25519", "m").privateKey)).toBe(
      "2b4be7f19ee27bbf30c667b642d5f4aa69fd169872f8fc3059c08ebae2eb19e7",
    );
  });

  it("derives non-hardened Ed25519 segments as hardened ones", () => {
    const seed = mnemonicToSeedSync(mnemonic);
    expect(deriveKey(seed, "CURVE_ED25519", "m/44'/607'/0'/0/0")).toEqual(deriveKey(seed, "CURVE_ED25519", "m/44'/607'/0'/0'/0'"));
  });

  it("follows SLIP-0010 test vector 1 for NIST P-256", () => {
    expect(hex(deriveKey(vectorSeed, "CURVE_P256", "m").privateKey)).toBe(
      "612091aaa12e22dd2abef664f8a01a82cae99ad7441b7ef8110424915c268bc2",
    );
    expect(hex(deriveKey(vectorSeed, "CURVE_P256", "m/0'").privateKey)).toBe(
      "6939694369114c67917a182c59ddb8cafc3004e63ca5d3b84403ba8613debc0c",
    );
  });

  // Native (node:crypto) derivation against pure-JS oracles: random seeds, random paths of 0 to 6 levels mixing
  // hardened and non-hardened indexes, small and large. VECTORS paths per curve (3,000 in all).
  const VECTORS = 1000;
  // Seconds on a quiet machine, but CPU-bound: a loaded one stretches them past the default 30 s.
  const ORACLE_RUN = { timeout: 180_000 };
  const randomPath = (minDepth = 0) => {
    const depth = minDepth + Math.floor(Math.random() * (7 - minDepth));
    const segments = Array.from({ length: depth }, () => {
      const index = Math.random() < 0.5 ? Math.floor(Math.random() * 8) : randomBytes(4).readUInt32BE() & 0x7fffffff;
      return `${index}${Math.random() < 0.5 ? "'" : ""}`;
    });
    return ["m", ...segments].join("/");
  };
  const randomSeed = () => new Uint8Array(randomBytes(Math.random() < 0.9 ? 64 : 16 + Math.floor(Math.random() * 49)));

  it(`derives secp256k1 keys as @scure/bip32 does, on ${VECTORS} random seeds and paths`, ORACLE_RUN, () => {
    for (let n = 0; n < VECTORS; n++) {
      const seed = randomSeed();
      const path = randomPath();
      const oracle = HDKey.fromMasterSeed(seed).derive(path);
      const key = deriveKey(seed, "CURVE_SECP256K1", path);
      expect({ path, privateKey: hex(key.privateKey), publicKey: hex(key.publicKey) }).toEqual({
        path,
        privateKey: hex(oracle.privateKey!),
        publicKey: hex(oracle.publicKey!),
      });
    }
    expect(hex(deriveKey(vectorSeed, "CURVE_SECP256K1", "m/0'/1/2'/2/1000000000").publicKey)).toBe(
      hex(secp256k1.getPublicKey(deriveKey(vectorSeed, "CURVE_SECP256K1", "m/0'/1/2'/2/1000000000").privateKey, true)),
    );
  });

  it(`derives Ed25519 keys as ed25519-hd-key and @noble/curves do, on ${VECTORS} random seeds and paths`, ORACLE_RUN, () => {
    for (let n = 0; n < VECTORS; n++) {
      const seed = new Uint8Array(randomBytes(64));
      const path = randomPath(1); // ed25519-hd-key refuses "m" alone (checked with the fixed vector above)
      const hardened = path.replace(/(\d)(?=\/|$)/g, "$1'"); // as SLIP-0010 derives them
      const oracle = derivePath(hardened, hex(seed)).key;
      const key = deriveKey(seed, "CURVE_ED25519", path);
      expect({ path, privateKey: hex(key.privateKey), publicKey: hex(key.publicKey) }).toEqual({
        path,
        privateKey: hex(oracle),
        publicKey: hex(ed25519.getPublicKey(oracle)),
      });
    }
  });

  it(`derives P-256 keys as a pure-JS SLIP-0010 implementation does, on ${VECTORS} random seeds and paths`, ORACLE_RUN, () => {
    for (let n = 0; n < VECTORS; n++) {
      const seed = new Uint8Array(randomBytes(64));
      const path = randomPath();
      const oracle = slip10P256(seed, parsePath(path).indexes);
      const key = deriveKey(seed, "CURVE_P256", path);
      expect({ path, privateKey: hex(key.privateKey), publicKey: hex(key.publicKey) }).toEqual({
        path,
        privateKey: hex(oracle),
        publicKey: hex(p256.getPublicKey(oracle, true)),
      });
    }
  });

  it("refuses malformed paths clearly", () => {
    expect(() => parsePath("44'/60'")).toThrow(/must start with m/);
    expect(() => parsePath("m/abc")).toThrow(/segment "abc"/);
    expect(() => parsePath("m/2147483648")).toThrow(/below 2\^31/);
    expect(parsePath("m/44h/0").indexes).toEqual([0x80000000 + 44, 0]);
  });
});

/** SLIP-0010 for NIST P-256 with @noble's HMAC and point multiplication: the oracle for the native derivation. */
function slip10P256(seed: Uint8Array, indexes: number[]): Uint8Array {
  const order = p256.Point.Fn.ORDER;
  const int = (bytes: Uint8Array) => BigInt(`0x${hex(bytes)}`);
  const bytes32 = (value: bigint) => new Uint8Array(Buffer.from(value.toString(16).padStart(64, "0"), "hex"));
  const ser32 = (index: number) => new Uint8Array([index >>> 24, (index >>> 16) & 255, (index >>> 8) & 255, index & 255]);
  const label = new TextEncoder().encode("Nist256p1 seed");
  let digest = hmac(sha512, label, seed);
  while (int(digest.slice(0, 32)) === 0n || int(digest.slice(0, 32)) >= order) digest = hmac(sha512, label, digest);
  let key = digest.slice(0, 32);
  let chainCode = digest.slice(32);
  for (const index of indexes) {
    let data =
      index >= 0x80000000
        ? new Uint8Array([0, ...key, ...ser32(index)])
        : new Uint8Array([...p256.getPublicKey(key, true), ...ser32(index)]);
    for (;;) {
      const i = hmac(sha512, chainCode, data);
      const child = (int(i.slice(0, 32)) + int(key)) % order;
      if (int(i.slice(0, 32)) < order && child !== 0n) {
        key = bytes32(child);
        chainCode = i.slice(32);
        break;
      }
      data = new Uint8Array([1, ...i.slice(32), ...ser32(index)]);
    }
  }
  return key;
}
