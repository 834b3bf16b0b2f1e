import { decodeSuiPrivateKey, encodeSuiPrivateKey } from "@mysten/sui/cryptography";
import { Keypair } from "@solana/web3.js";
import { ECPairFactory } from "ecpair";
import { randomBytes } from "node:crypto";
import * as ecc from "tiny-secp256k1";
import { describe, expect, it } from "vitest";
import { decodeImportedKey, encodeExportedKey, keyFormatOf, KEY_FORMATS } from "../../src/frames/browser/key-formats.js";
import { networks } from "bitcoinjs-lib";
import { base58 } from "@scure/base";

const ECPair = ECPairFactory(ecc);

/** The text forms of the export and import frames, against each chain's own library. */
describe("private key formats of the export and import frames", () => {
  const key = new Uint8Array(randomBytes(32));

  it("HEXADECIMAL is 0x and 64 hex digits; import takes it with or without 0x", () => {
    const text = encodeExportedKey(key, "HEXADECIMAL");
    expect(text).toBe(`0x${Buffer.from(key).toString("hex")}`);
    expect(decodeImportedKey(text, "HEXADECIMAL")).toEqual(key);
    expect(decodeImportedKey(` ${text.slice(2)}\n`, "HEXADECIMAL")).toEqual(key);
  });

  it("SOLANA is the keypair @solana/web3.js makes from the seed, and imports as that seed", () => {
    const keypair = Keypair.fromSeed(key);
    const text = encodeExportedKey(key, "SOLANA");
    expect(base58.decode(text)).toEqual(keypair.secretKey);
    expect(decodeImportedKey(text, "SOLANA")).toEqual(key);
    // A keypair whose public half belongs to another seed is refused rather than imported as some other key.
    const forged = new Uint8Array([...key, ...Keypair.generate().publicKey.toBytes()]);
    expect(() => decodeImportedKey(base58.encode(forged), "SOLANA")).toThrow(/public half does not match/);
  });

  it("BITCOIN_*_WIF is the compressed WIF ecpair makes, for each network", () => {
    for (const [format, network] of [
      ["BITCOIN_MAINNET_WIF", networks.bitcoin],
      ["BITCOIN_TESTNET_WIF", networks.testnet],
    ] as const) {
      const wif = ECPair.fromPrivateKey(key, { network, compressed: true }).toWIF();
      expect(encodeExportedKey(key, format)).toBe(wif);
      expect(decodeImportedKey(wif, format)).toEqual(key);
    }
    const mainnet = ECPair.fromPrivateKey(key, { network: networks.bitcoin }).toWIF();
    expect(() => decodeImportedKey(mainnet, "BITCOIN_TESTNET_WIF")).toThrow("this is not a BITCOIN_TESTNET_WIF private key");
  });

  it("SUI_BECH32 is the suiprivkey string @mysten/sui encodes", () => {
    const text = encodeExportedKey(key, "SUI_BECH32");
    expect(text).toBe(encodeSuiPrivateKey(key, "ED25519"));
    expect(decodeImportedKey(text, "SUI_BECH32")).toEqual(decodeSuiPrivateKey(text).secretKey);
  });

  it("refuses what is not a key of the format, naming the format, and unknown formats", () => {
    for (const format of KEY_FORMATS) {
      expect(() => decodeImportedKey("not a key", format)).toThrow(format);
      expect(() => decodeImportedKey("  ", format)).toThrow("enter the private key");
    }
    expect(() => encodeExportedKey(new Uint8Array(31), "SOLANA")).toThrow("a SOLANA key is 32 bytes; this one is 31");
    expect(keyFormatOf(undefined)).toBe("HEXADECIMAL");
    expect(() => keyFormatOf("PEM")).toThrow(
      'keyFormat must be one of HEXADECIMAL, SOLANA, BITCOIN_MAINNET_WIF, BITCOIN_TESTNET_WIF, SUI_BECH32, not "PEM"',
    );
  });
});
