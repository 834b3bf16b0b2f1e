import { Ed25519PrivateKey, Account } from "@aptos-labs/ts-sdk";
import { encodeEd25519Pubkey, encodeSecp256k1Pubkey, pubkeyToAddress } from "@cosmjs/amino";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { p256 } from "@noble/curves/nist.js";
import { mnemonicToSeedSync } from "@scure/bip39";
import { bech32m } from "@scure/base";
import { Keypair as SolanaKeypair } from "@solana/web3.js";
import { Keypair as StellarKeypair } from "@stellar/stellar-base";
import { WalletContractV3R2, WalletContractV4, WalletContractV5R1 } from "@ton/ton";
import * as bitcoin from "bitcoinjs-lib";
import { SigningKey, computeAddress, encodeBase58 } from "ethers";
import { deriveAddress as xrplAddress } from "ripple-keypairs";
import * as ecc from "tiny-secp256k1";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import {
  ADDRESS_FORMATS,
  AddressFormatError,
  curvesForAddressFormat,
  defaultPathForAddressFormat,
  deriveAddress,
  type AddressFormat,
} from "../../src/crypto/addresses/index.js";
import { deriveKey, type Curve } from "../../src/crypto/hd/derive.js";
import { sha256 } from "@noble/hashes/sha2.js";

bitcoin.initEccLib(ecc);

const seed = mnemonicToSeedSync("legal winner thank year wave sausage worth useful legal winner thank yellow");
const keyFor = (format: AddressFormat, curve: Curve = curvesForAddressFormat(format)[0]!) =>
  deriveKey(seed, curve, defaultPathForAddressFormat(format));
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

/** Each format's address from an independent library, given the same private key. */
const ORACLES: Partial<Record<AddressFormat, (privateKey: Uint8Array, publicKey: Uint8Array) => string>> = {
  ADDRESS_FORMAT_UNCOMPRESSED: (priv) => SigningKey.computePublicKey(priv, false).slice(2),
  ADDRESS_FORMAT_COMPRESSED: (priv) => SigningKey.computePublicKey(priv, true).slice(2),
  ADDRESS_FORMAT_ETHEREUM: (priv) => privateKeyToAccount(`0x${hex(priv)}`).address,
  ADDRESS_FORMAT_SOLANA: (priv) => SolanaKeypair.fromSeed(priv).publicKey.toBase58(),
  ADDRESS_FORMAT_COSMOS: (_priv, pub) => pubkeyToAddress(encodeSecp256k1Pubkey(pub), "cosmos"),
  ADDRESS_FORMAT_SEI: (_priv, pub) => pubkeyToAddress(encodeSecp256k1Pubkey(pub), "sei"),
  // Tron: base58check of 0x41 ‖ the Ethereum address bytes, computed with ethers.
  ADDRESS_FORMAT_TRON: (priv) => {
    const payload = Buffer.from(`41${computeAddress(`0x${hex(priv)}`).slice(2)}`, "hex");
    const checksum = sha256(sha256(payload)).slice(0, 4);
    return encodeBase58(Buffer.concat([payload, checksum]));
  },
  ADDRESS_FORMAT_SUI: (priv) => Ed25519Keypair.fromSecretKey(priv).toSuiAddress(),
  ADDRESS_FORMAT_APTOS: (priv) => Account.fromPrivateKey({ privateKey: new Ed25519PrivateKey(priv) }).accountAddress.toStringLong(),
  ADDRESS_FORMAT_XLM: (priv) => StellarKeypair.fromRawEd25519Seed(Buffer.from(priv)).publicKey(),
  ADDRESS_FORMAT_DOGE_MAINNET: (_priv, pub) =>
    bitcoin.payments.p2pkh({
      pubkey: Buffer.from(pub),
      network: {
        messagePrefix: "\x19Dogecoin Signed Message:\n",
        bech32: "doge",
        bip32: { public: 0x02facafd, private: 0x02fac398 },
        pubKeyHash: 0x1e,
        scriptHash: 0x16,
        wif: 0x9e,
      },
    }).address!,
  ADDRESS_FORMAT_DOGE_TESTNET: (_priv, pub) =>
    bitcoin.payments.p2pkh({
      pubkey: Buffer.from(pub),
      network: {
        messagePrefix: "\x19Dogecoin Signed Message:\n",
        bech32: "tdge",
        bip32: { public: 0x043587cf, private: 0x04358394 },
        pubKeyHash: 0x71,
        scriptHash: 0xc4,
        wif: 0xf1,
      },
    }).address!,
  ADDRESS_FORMAT_TON_V3R2: (_priv, pub) =>
    WalletContractV3R2.create({ workchain: 0, publicKey: Buffer.from(pub) }).address.toString({
      urlSafe: true,
      bounceable: false,
      testOnly: false,
    }),
  ADDRESS_FORMAT_TON_V4R2: (_priv, pub) =>
    WalletContractV4.create({ workchain: 0, publicKey: Buffer.from(pub) }).address.toString({
      urlSafe: true,
      bounceable: false,
      testOnly: false,
    }),
  ADDRESS_FORMAT_TON_V5R1: (_priv, pub) =>
    WalletContractV5R1.create({ workchain: 0, publicKey: Buffer.from(pub) }).address.toString({
      urlSafe: true,
      bounceable: false,
      testOnly: false,
    }),
  ADDRESS_FORMAT_XRP: (_priv, pub) => xrplAddress(hex(pub).toUpperCase()),
};

const BITCOIN_NETWORKS = {
  MAINNET: bitcoin.networks.bitcoin,
  TESTNET: bitcoin.networks.testnet,
  SIGNET: bitcoin.networks.testnet,
  REGTEST: bitcoin.networks.regtest,
};

function bitcoinOracle(format: AddressFormat, publicKey: Uint8Array): string | undefined {
  const match = /^ADDRESS_FORMAT_BITCOIN_(MAINNET|TESTNET|SIGNET|REGTEST)_(P2PKH|P2SH|P2WPKH|P2WSH|P2TR)$/.exec(format);
  if (!match) return undefined;
  const network = BITCOIN_NETWORKS[match[1] as keyof typeof BITCOIN_NETWORKS];
  const pubkey = Buffer.from(publicKey);
  switch (match[2]) {
    case "P2PKH":
      return bitcoin.payments.p2pkh({ pubkey, network }).address;
    case "P2SH":
      return bitcoin.payments.p2sh({ redeem: bitcoin.payments.p2wpkh({ pubkey, network }), network }).address;
    case "P2WPKH":
      return bitcoin.payments.p2wpkh({ pubkey, network }).address;
    case "P2WSH":
      return bitcoin.payments.p2wsh({ redeem: bitcoin.payments.p2pk({ pubkey, network }), network }).address;
    default:
      return bitcoin.payments.p2tr({ internalPubkey: pubkey.subarray(1), network }).address;
  }
}

describe("address formats, each checked against its chain's own library", () => {
  for (const format of ADDRESS_FORMATS) {
    if (format.startsWith("ADDRESS_FORMAT_SPARK_")) continue;
    it(format, () => {
      const { privateKey, publicKey } = keyFor(format);
      const expected = bitcoinOracle(format, publicKey) ?? ORACLES[format]!(privateKey, publicKey);
      expect(deriveAddress(format, curvesForAddressFormat(format)[0]!, publicKey)).toBe(expected);
    });
  }

  it("Sei and XRP Ed25519 keys follow their chains' Ed25519 rules", () => {
    const { publicKey } = deriveKey(seed, "CURVE_ED25519", "m/44'/118'/0'/0'/0'");
    expect(deriveAddress("ADDRESS_FORMAT_SEI", "CURVE_ED25519", publicKey)).toBe(pubkeyToAddress(encodeEd25519Pubkey(publicKey), "sei"));
    expect(deriveAddress("ADDRESS_FORMAT_XRP", "CURVE_ED25519", publicKey)).toBe(xrplAddress(`ED${hex(publicKey).toUpperCase()}`));
  });

  it("P-256 keys have compressed and uncompressed forms", () => {
    const { privateKey, publicKey } = deriveKey(seed, "CURVE_P256", "m/0'/0");
    expect(deriveAddress("ADDRESS_FORMAT_COMPRESSED", "CURVE_P256", publicKey)).toBe(hex(p256.getPublicKey(privateKey, true)));
    expect(deriveAddress("ADDRESS_FORMAT_UNCOMPRESSED", "CURVE_P256", publicKey)).toBe(hex(p256.getPublicKey(privateKey, false)));
  });

  it("Spark addresses are bech32m of the identity key behind the 0x0a 0x21 header", () => {
    for (const [format, prefix] of [
      ["ADDRESS_FORMAT_SPARK_MAINNET", "spark"],
      ["ADDRESS_FORMAT_SPARK_REGTEST", "sparkrt"],
    ] as const) {
      const { publicKey } = keyFor(format);
      const address = deriveAddress(format, "CURVE_SECP256K1", publicKey);
      const decoded = bech32m.decode(address as `${string}1${string}`, 1000);
      expect(decoded.prefix).toBe(prefix);
      expect(hex(bech32m.fromWords(decoded.words))).toBe(`0a21${hex(publicKey)}`);
    }
  });

  it("every format has a default path and curves; a curve that cannot work is refused", () => {
    for (const format of ADDRESS_FORMATS) {
      expect(defaultPathForAddressFormat(format)).toMatch(/^m(\/\d+'?)+$/);
      expect(curvesForAddressFormat(format).length).toBeGreaterThan(0);
    }
    const ed = deriveKey(seed, "CURVE_ED25519", "m/0'").publicKey;
    expect(() => deriveAddress("ADDRESS_FORMAT_ETHEREUM", "CURVE_ED25519", ed)).toThrow(AddressFormatError);
    expect(() => deriveAddress("ADDRESS_FORMAT_UNCOMPRESSED", "CURVE_ED25519", ed)).toThrow(/CURVE_SECP256K1 or CURVE_P256/);
    expect(() => deriveAddress("ADDRESS_FORMAT_SOLANA", "CURVE_SECP256K1", keyFor("ADDRESS_FORMAT_ETHEREUM").publicKey)).toThrow(
      /needs curve CURVE_ED25519, not CURVE_SECP256K1/,
    );
  });
});
