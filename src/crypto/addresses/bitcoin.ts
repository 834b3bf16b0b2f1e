import { NETWORK, TEST_NETWORK, p2pk, p2pkh, p2sh, p2tr, p2wpkh, p2wsh } from "@scure/btc-signer";

type BtcNetwork = typeof NETWORK;

/** Testnet and signet share testnet's prefixes; regtest differs only in its bech32 prefix. */
export const BITCOIN_NETWORKS: Record<"MAINNET" | "TESTNET" | "SIGNET" | "REGTEST", BtcNetwork> = {
  MAINNET: NETWORK,
  TESTNET: TEST_NETWORK,
  SIGNET: TEST_NETWORK,
  REGTEST: { ...TEST_NETWORK, bech32: "bcrt" },
};

export type BitcoinScript = "P2PKH" | "P2SH" | "P2WPKH" | "P2WSH" | "P2TR";

/**
 * A single-key Bitcoin address from a compressed secp256k1 public key:
 * P2SH is P2SH-P2WPKH (BIP-49, what wallets derive at m/49'); P2WSH wraps a one-key
 * `<pubkey> OP_CHECKSIG` script; P2TR is a BIP-86 key-path-only output (no script tree).
 */
export function bitcoinAddress(compressedPublicKey: Uint8Array, network: BtcNetwork, script: BitcoinScript): string {
  let address: string | undefined;
  switch (script) {
    case "P2PKH":
      address = p2pkh(compressedPublicKey, network).address;
      break;
    case "P2SH":
      address = p2sh(p2wpkh(compressedPublicKey, network), network).address;
      break;
    case "P2WPKH":
      address = p2wpkh(compressedPublicKey, network).address;
      break;
    case "P2WSH":
      address = p2wsh(p2pk(compressedPublicKey, network), network).address;
      break;
    case "P2TR":
      address = p2tr(compressedPublicKey.slice(1), undefined, network).address;
      break;
  }
  if (!address) throw new Error(`no ${script} address for this key`);
  return address;
}
