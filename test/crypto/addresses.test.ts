import { secp256k1 } from "@noble/curves/secp256k1.js";
import { mnemonicToSeedSync } from "@scure/bip39";
import { mnemonicToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { BITCOIN_NETWORKS, bitcoinAddress } from "../../src/crypto/addresses/bitcoin.js";
import { ethereumAddress } from "../../src/crypto/addresses/ethereum.js";
import { deriveKey } from "../../src/crypto/hd/derive.js";

const abandon = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
const key = (mnemonic: string, path: string) => deriveKey(mnemonicToSeedSync(mnemonic), "CURVE_SECP256K1", path);

describe("addresses", () => {
  it("match the BIP-44/49/84/86 test vectors for the 'abandon … about' mnemonic", () => {
    const mainnet = BITCOIN_NETWORKS.MAINNET;
    expect(bitcoinAddress(key(abandon, "m/44'/0'/0'/0/0").publicKey, mainnet, "P2PKH")).toBe("1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA");
    expect(bitcoinAddress(key(abandon, "m/49'/0'/0'/0/0").publicKey, mainnet, "P2SH")).toBe("37VucYSaXLCAsxYyAPfbSi9eh4iEcbShgf");
    expect(bitcoinAddress(key(abandon, "m/84'/0'/0'/0/0").publicKey, mainnet, "P2WPKH")).toBe("bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu");
    expect(bitcoinAddress(key(abandon, "m/86'/0'/0'/0/0").publicKey, mainnet, "P2TR")).toBe(
      "bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr",
    );
  });

  it("use each network's prefixes", () => {
    const publicKey = key(abandon, "m/84'/1'/0'/0/0").publicKey;
    expect(bitcoinAddress(publicKey, BITCOIN_NETWORKS.TESTNET, "P2WPKH")).toMatch(/^tb1q/);
    expect(bitcoinAddress(publicKey, BITCOIN_NETWORKS.SIGNET, "P2TR")).toMatch(/^tb1p/);
    expect(bitcoinAddress(publicKey, BITCOIN_NETWORKS.REGTEST, "P2WSH")).toMatch(/^bcrt1q[0-9a-z]{58}$/);
    expect(bitcoinAddress(publicKey, BITCOIN_NETWORKS.TESTNET, "P2PKH")).toMatch(/^[mn]/);
    expect(bitcoinAddress(publicKey, BITCOIN_NETWORKS.REGTEST, "P2SH")).toMatch(/^2/);
  });

  it("give the same EIP-55 Ethereum addresses as viem", () => {
    const mnemonic = "test test test test test test test test test test test junk";
    for (const index of [0, 3]) {
      const compressed = key(mnemonic, `m/44'/60'/0'/0/${index}`).publicKey;
      const uncompressed = secp256k1.Point.fromBytes(compressed).toBytes(false);
      expect(ethereumAddress(uncompressed)).toBe(mnemonicToAccount(mnemonic, { addressIndex: index }).address);
    }
  });
});
