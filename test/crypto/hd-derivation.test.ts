import { mnemonicToSeedSync } from "@scure/bip39";
import { derivePath } from "ed25519-hd-key";
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

  it("refuses malformed paths clearly", () => {
    expect(() => parsePath("44'/60'")).toThrow(/must start with m/);
    expect(() => parsePath("m/abc")).toThrow(/segment "abc"/);
    expect(() => parsePath("m/2147483648")).toThrow(/below 2\^31/);
    expect(parsePath("m/44h/0").indexes).toEqual([0x80000000 + 44, 0]);
  });
});
