import type { Curve } from "../hd/derive.js";
import { aptosAddress } from "./aptos.js";
import { BITCOIN_NETWORKS, bitcoinAddress, type BitcoinScript } from "./bitcoin.js";
import { cosmosEd25519Address, cosmosSecp256k1Address } from "./cosmos.js";
import { dogecoinAddress } from "./dogecoin.js";
import { ethereumAddress } from "./ethereum.js";
import { compressedAddress, uncompressedKey } from "./public-key.js";
import { solanaAddress } from "./solana.js";
import { sparkAddress } from "./spark.js";
import { stellarAddress } from "./stellar.js";
import { suiAddress } from "./sui.js";
import { tonAddress } from "./ton.js";
import { tronAddress } from "./tron.js";
import { xrpAddress } from "./xrp.js";

const BITCOIN_NETWORK_NAMES = ["MAINNET", "TESTNET", "SIGNET", "REGTEST"] as const;
const BITCOIN_SCRIPTS = ["P2PKH", "P2SH", "P2WPKH", "P2WSH", "P2TR"] as const;

/** Every ADDRESS_FORMAT_* value of the API, in the specification's order. */
export const ADDRESS_FORMATS = [
  "ADDRESS_FORMAT_UNCOMPRESSED",
  "ADDRESS_FORMAT_COMPRESSED",
  "ADDRESS_FORMAT_ETHEREUM",
  "ADDRESS_FORMAT_SOLANA",
  "ADDRESS_FORMAT_COSMOS",
  "ADDRESS_FORMAT_TRON",
  "ADDRESS_FORMAT_SUI",
  "ADDRESS_FORMAT_APTOS",
  ...BITCOIN_NETWORK_NAMES.flatMap((network) => BITCOIN_SCRIPTS.map((script) => `ADDRESS_FORMAT_BITCOIN_${network}_${script}` as const)),
  "ADDRESS_FORMAT_SEI",
  "ADDRESS_FORMAT_XLM",
  "ADDRESS_FORMAT_DOGE_MAINNET",
  "ADDRESS_FORMAT_DOGE_TESTNET",
  "ADDRESS_FORMAT_TON_V3R2",
  "ADDRESS_FORMAT_TON_V4R2",
  "ADDRESS_FORMAT_TON_V5R1",
  "ADDRESS_FORMAT_XRP",
  "ADDRESS_FORMAT_SPARK_MAINNET",
  "ADDRESS_FORMAT_SPARK_REGTEST",
] as const;

export type AddressFormat = (typeof ADDRESS_FORMATS)[number];

export function isAddressFormat(value: string): value is AddressFormat {
  return (ADDRESS_FORMATS as readonly string[]).includes(value);
}

export class AddressFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AddressFormatError";
  }
}

const SECP256K1: readonly Curve[] = ["CURVE_SECP256K1"];
const ED25519: readonly Curve[] = ["CURVE_ED25519"];

interface FormatRule {
  curves: readonly Curve[];
  defaultPath: string;
  derive(curve: Curve, publicKey: Uint8Array): string;
}

function bitcoinRule(network: (typeof BITCOIN_NETWORK_NAMES)[number], script: BitcoinScript): FormatRule {
  const coin = network === "MAINNET" ? "0'" : "1'";
  const defaultPath = {
    P2PKH: `m/44'/${coin}/0'/0/0`,
    P2SH: `m/49'/${coin}/0'/0/0`,
    P2WPKH: `m/84'/${coin}/0'/0/0`,
    P2WSH: `m/48'/${coin}/0'/2'/0/0`,
    P2TR: `m/86'/${coin}/0'/0/0`,
  }[script];
  return { curves: SECP256K1, defaultPath, derive: (_curve, key) => bitcoinAddress(key, BITCOIN_NETWORKS[network], script) };
}

/**
 * Curves, default path and derivation per format. Default paths are the API documentation's table
 * (Solana's hardened m/44'/501'/0'/0', as its prose and the SDK say); Ed25519 paths derive as if
 * every segment were hardened. Sei accepts secp256k1 (Sei's
 * network docs; the usual Cosmos derivation) and Ed25519 (the API's wallet table), each with the
 * Cosmos SDK address rule for that key type.
 */
const RULES: Record<AddressFormat, FormatRule> = {
  ADDRESS_FORMAT_UNCOMPRESSED: {
    curves: ["CURVE_SECP256K1", "CURVE_P256"],
    defaultPath: "m/0'/0",
    derive: (curve, key) => compressedAddress(uncompressedKey(curve as Exclude<Curve, "CURVE_ED25519">, key)),
  },
  ADDRESS_FORMAT_COMPRESSED: {
    curves: ["CURVE_SECP256K1", "CURVE_ED25519", "CURVE_P256"],
    defaultPath: "m/0'/0",
    derive: (_curve, key) => compressedAddress(key),
  },
  ADDRESS_FORMAT_ETHEREUM: {
    curves: SECP256K1,
    defaultPath: "m/44'/60'/0'/0/0",
    derive: (_curve, key) => ethereumAddress(uncompressedKey("CURVE_SECP256K1", key)),
  },
  ADDRESS_FORMAT_SOLANA: { curves: ED25519, defaultPath: "m/44'/501'/0'/0'", derive: (_curve, key) => solanaAddress(key) },
  ADDRESS_FORMAT_COSMOS: {
    curves: SECP256K1,
    defaultPath: "m/44'/118'/0'/0/0",
    derive: (_curve, key) => cosmosSecp256k1Address("cosmos", key),
  },
  ADDRESS_FORMAT_TRON: {
    curves: SECP256K1,
    defaultPath: "m/44'/195'/0'/0/0",
    derive: (_curve, key) => tronAddress(uncompressedKey("CURVE_SECP256K1", key)),
  },
  ADDRESS_FORMAT_SUI: { curves: ED25519, defaultPath: "m/44'/784'/0'/0/0", derive: (_curve, key) => suiAddress(key) },
  ADDRESS_FORMAT_APTOS: { curves: ED25519, defaultPath: "m/44'/637'/0'/0'/0", derive: (_curve, key) => aptosAddress(key) },
  ...(Object.fromEntries(
    BITCOIN_NETWORK_NAMES.flatMap((network) =>
      BITCOIN_SCRIPTS.map((script) => [`ADDRESS_FORMAT_BITCOIN_${network}_${script}`, bitcoinRule(network, script)]),
    ),
  ) as Record<`ADDRESS_FORMAT_BITCOIN_${(typeof BITCOIN_NETWORK_NAMES)[number]}_${BitcoinScript}`, FormatRule>),
  ADDRESS_FORMAT_SEI: {
    curves: ["CURVE_SECP256K1", "CURVE_ED25519"],
    defaultPath: "m/44'/118'/0'/0/0",
    derive: (curve, key) => (curve === "CURVE_ED25519" ? cosmosEd25519Address("sei", key) : cosmosSecp256k1Address("sei", key)),
  },
  ADDRESS_FORMAT_XLM: { curves: ED25519, defaultPath: "m/44'/148'/0'/0'/0", derive: (_curve, key) => stellarAddress(key) },
  ADDRESS_FORMAT_DOGE_MAINNET: {
    curves: SECP256K1,
    defaultPath: "m/44'/3'/0'/0/0",
    derive: (_curve, key) => dogecoinAddress(key, "MAINNET"),
  },
  ADDRESS_FORMAT_DOGE_TESTNET: {
    curves: SECP256K1,
    defaultPath: "m/44'/1'/0'/0/0",
    derive: (_curve, key) => dogecoinAddress(key, "TESTNET"),
  },
  ADDRESS_FORMAT_TON_V3R2: { curves: ED25519, defaultPath: "m/44'/607'/0'/0/0", derive: (_curve, key) => tonAddress("V3R2", key) },
  ADDRESS_FORMAT_TON_V4R2: { curves: ED25519, defaultPath: "m/44'/607'/0'/0/0", derive: (_curve, key) => tonAddress("V4R2", key) },
  ADDRESS_FORMAT_TON_V5R1: { curves: ED25519, defaultPath: "m/44'/607'/0'/0/0", derive: (_curve, key) => tonAddress("V5R1", key) },
  ADDRESS_FORMAT_XRP: {
    curves: ["CURVE_SECP256K1", "CURVE_ED25519"],
    defaultPath: "m/44'/144'/0'/0/0",
    derive: (curve, key) => xrpAddress(curve, key),
  },
  ADDRESS_FORMAT_SPARK_MAINNET: {
    curves: SECP256K1,
    defaultPath: "m/8797555'/0'/0'",
    derive: (_curve, key) => sparkAddress(key, "MAINNET"),
  },
  ADDRESS_FORMAT_SPARK_REGTEST: {
    curves: SECP256K1,
    defaultPath: "m/8797555'/0'/0'",
    derive: (_curve, key) => sparkAddress(key, "REGTEST"),
  },
};

/** The curves a format can be derived from (the usual one first). */
export function curvesForAddressFormat(format: AddressFormat): readonly Curve[] {
  return RULES[format].curves;
}

/** The default derivation path of a format (account index 0). */
export function defaultPathForAddressFormat(format: AddressFormat): string {
  return RULES[format].defaultPath;
}

/** publicKey: compressed SEC1 (33 bytes) for secp256k1 and P-256, the 32-byte key for Ed25519. */
export function deriveAddress(format: AddressFormat, curve: Curve, publicKey: Uint8Array): string {
  const rule = RULES[format];
  if (!rule.curves.includes(curve)) throw new AddressFormatError(`${format} needs curve ${rule.curves.join(" or ")}, not ${curve}`);
  return rule.derive(curve, publicKey);
}
