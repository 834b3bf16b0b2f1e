import type { AddressFormat } from "../../../src/crypto/addresses/index.js";

export type Curve = "CURVE_SECP256K1" | "CURVE_ED25519" | "CURVE_P256";
export const CURVES: { value: Curve; label: string }[] = [
  { value: "CURVE_SECP256K1", label: "secp256k1" },
  { value: "CURVE_ED25519", label: "Ed25519" },
  { value: "CURVE_P256", label: "P-256" },
];

const SECP = ["CURVE_SECP256K1"] as const;
const ED = ["CURVE_ED25519"] as const;
const bitcoin = (network: string, script: string) => ({ label: `Bitcoin ${network} ${script}`, curves: SECP });

/**
 * Each address format Strongroom derives (src/crypto/addresses), its name here and the curves it needs. Typed
 * against the server's list, so a format added there fails the type check until it is described here.
 */
export const ADDRESS_FORMATS: Record<AddressFormat, { label: string; curves: readonly Curve[] }> = {
  ADDRESS_FORMAT_UNCOMPRESSED: { label: "Uncompressed public key", curves: ["CURVE_SECP256K1", "CURVE_P256"] },
  ADDRESS_FORMAT_COMPRESSED: { label: "Compressed public key", curves: ["CURVE_SECP256K1", "CURVE_ED25519", "CURVE_P256"] },
  ADDRESS_FORMAT_ETHEREUM: { label: "Ethereum", curves: SECP },
  ADDRESS_FORMAT_SOLANA: { label: "Solana", curves: ED },
  ADDRESS_FORMAT_COSMOS: { label: "Cosmos", curves: SECP },
  ADDRESS_FORMAT_TRON: { label: "Tron", curves: SECP },
  ADDRESS_FORMAT_SUI: { label: "Sui", curves: ED },
  ADDRESS_FORMAT_APTOS: { label: "Aptos", curves: ED },
  ADDRESS_FORMAT_BITCOIN_MAINNET_P2PKH: bitcoin("mainnet", "P2PKH"),
  ADDRESS_FORMAT_BITCOIN_MAINNET_P2SH: bitcoin("mainnet", "P2SH"),
  ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH: bitcoin("mainnet", "P2WPKH"),
  ADDRESS_FORMAT_BITCOIN_MAINNET_P2WSH: bitcoin("mainnet", "P2WSH"),
  ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR: bitcoin("mainnet", "P2TR"),
  ADDRESS_FORMAT_BITCOIN_TESTNET_P2PKH: bitcoin("testnet", "P2PKH"),
  ADDRESS_FORMAT_BITCOIN_TESTNET_P2SH: bitcoin("testnet", "P2SH"),
  ADDRESS_FORMAT_BITCOIN_TESTNET_P2WPKH: bitcoin("testnet", "P2WPKH"),
  ADDRESS_FORMAT_BITCOIN_TESTNET_P2WSH: bitcoin("testnet", "P2WSH"),
  ADDRESS_FORMAT_BITCOIN_TESTNET_P2TR: bitcoin("testnet", "P2TR"),
  ADDRESS_FORMAT_BITCOIN_SIGNET_P2PKH: bitcoin("signet", "P2PKH"),
  ADDRESS_FORMAT_BITCOIN_SIGNET_P2SH: bitcoin("signet", "P2SH"),
  ADDRESS_FORMAT_BITCOIN_SIGNET_P2WPKH: bitcoin("signet", "P2WPKH"),
  ADDRESS_FORMAT_BITCOIN_SIGNET_P2WSH: bitcoin("signet", "P2WSH"),
  ADDRESS_FORMAT_BITCOIN_SIGNET_P2TR: bitcoin("signet", "P2TR"),
  ADDRESS_FORMAT_BITCOIN_REGTEST_P2PKH: bitcoin("regtest", "P2PKH"),
  ADDRESS_FORMAT_BITCOIN_REGTEST_P2SH: bitcoin("regtest", "P2SH"),
  ADDRESS_FORMAT_BITCOIN_REGTEST_P2WPKH: bitcoin("regtest", "P2WPKH"),
  ADDRESS_FORMAT_BITCOIN_REGTEST_P2WSH: bitcoin("regtest", "P2WSH"),
  ADDRESS_FORMAT_BITCOIN_REGTEST_P2TR: bitcoin("regtest", "P2TR"),
  ADDRESS_FORMAT_SEI: { label: "Sei", curves: ["CURVE_SECP256K1", "CURVE_ED25519"] },
  ADDRESS_FORMAT_XLM: { label: "Stellar", curves: ED },
  ADDRESS_FORMAT_DOGE_MAINNET: { label: "Dogecoin mainnet", curves: SECP },
  ADDRESS_FORMAT_DOGE_TESTNET: { label: "Dogecoin testnet", curves: SECP },
  ADDRESS_FORMAT_TON_V3R2: { label: "TON v3r2", curves: ED },
  ADDRESS_FORMAT_TON_V4R2: { label: "TON v4r2", curves: ED },
  ADDRESS_FORMAT_TON_V5R1: { label: "TON v5r1", curves: ED },
  ADDRESS_FORMAT_XRP: { label: "XRP", curves: ["CURVE_SECP256K1", "CURVE_ED25519"] },
  ADDRESS_FORMAT_SPARK_MAINNET: { label: "Spark mainnet", curves: SECP },
  ADDRESS_FORMAT_SPARK_REGTEST: { label: "Spark regtest", curves: SECP },
};

export const formatsForCurve = (curve: Curve) =>
  (Object.keys(ADDRESS_FORMATS) as AddressFormat[]).filter((format) => ADDRESS_FORMATS[format].curves.includes(curve));

/** ADDRESS_FORMAT_ETHEREUM → "Ethereum"; an unknown format as the API spells it. */
export const describeFormat = (format: string) => ADDRESS_FORMATS[format as AddressFormat]?.label ?? format;
