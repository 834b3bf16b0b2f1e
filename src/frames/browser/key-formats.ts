import { ed25519 } from "@noble/curves/ed25519.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { base58, bech32, createBase58check } from "@scure/base";

/**
 * The text forms a private key is shown in after export and typed in for import, as @turnkey/iframe-stamper's
 * KeyFormat names them. Export and import of the same format round-trip.
 */
export const KEY_FORMATS = ["HEXADECIMAL", "SOLANA", "BITCOIN_MAINNET_WIF", "BITCOIN_TESTNET_WIF", "SUI_BECH32"] as const;
export type KeyFormat = (typeof KEY_FORMATS)[number];

const base58check = createBase58check(sha256);
const WIF_VERSION = { BITCOIN_MAINNET_WIF: 0x80, BITCOIN_TESTNET_WIF: 0xef } as const;
const WIF_COMPRESSED = 0x01;
const SUI_PREFIX = "suiprivkey";
const SUI_ED25519_FLAG = 0x00;

export function keyFormatOf(value: unknown): KeyFormat {
  if (value === undefined || value === null || value === "") return "HEXADECIMAL";
  if (typeof value === "string" && (KEY_FORMATS as readonly string[]).includes(value)) return value as KeyFormat;
  throw new Error(`keyFormat must be one of ${KEY_FORMATS.join(", ")}, not ${JSON.stringify(value)}`);
}

function require32Bytes(key: Uint8Array, format: KeyFormat): Uint8Array {
  if (key.length !== 32) throw new Error(`a ${format} key is 32 bytes; this one is ${key.length}`);
  return key;
}

/** The exported private key bytes in `format`. A SOLANA key is base58(seed ‖ public key), the public key derived here. */
export function encodeExportedKey(key: Uint8Array, format: KeyFormat): string {
  switch (format) {
    case "HEXADECIMAL":
      return `0x${bytesToHex(key)}`;
    case "SOLANA": {
      const seed = require32Bytes(key, format);
      return base58.encode(new Uint8Array([...seed, ...ed25519.getPublicKey(seed)]));
    }
    case "BITCOIN_MAINNET_WIF":
    case "BITCOIN_TESTNET_WIF":
      return base58check.encode(new Uint8Array([WIF_VERSION[format], ...require32Bytes(key, format), WIF_COMPRESSED]));
    case "SUI_BECH32":
      return bech32.encode(SUI_PREFIX, bech32.toWords(new Uint8Array([SUI_ED25519_FLAG, ...require32Bytes(key, format)])), false);
  }
}

/** The private key bytes a user typed in `format`; anything that is not such a key throws, naming the format. */
export function decodeImportedKey(text: string, format: KeyFormat): Uint8Array {
  const typed = text.trim();
  if (!typed) throw new Error("enter the private key");
  const invalid = () => new Error(`this is not a ${format} private key`);
  try {
    switch (format) {
      case "HEXADECIMAL": {
        const hex = typed.replace(/^0x/i, "");
        if (!/^(?:[0-9a-fA-F]{2}){32}$/.test(hex)) throw invalid();
        return hexToBytes(hex);
      }
      case "SOLANA": {
        const bytes = base58.decode(typed);
        if (bytes.length === 32) return bytes;
        if (bytes.length !== 64) throw invalid();
        const seed = bytes.slice(0, 32);
        // The second half is the public key: a mistyped keypair must not import some other key.
        if (bytesToHex(ed25519.getPublicKey(seed)) !== bytesToHex(bytes.slice(32)))
          throw new Error("the SOLANA key's public half does not match its seed");
        return seed;
      }
      case "BITCOIN_MAINNET_WIF":
      case "BITCOIN_TESTNET_WIF": {
        const bytes = base58check.decode(typed);
        const compressed = bytes.length === 34 && bytes[33] === WIF_COMPRESSED;
        if (bytes[0] !== WIF_VERSION[format] || !(compressed || bytes.length === 33)) throw invalid();
        return bytes.slice(1, 33);
      }
      case "SUI_BECH32": {
        const { prefix, words } = bech32.decode(typed.toLowerCase() as `${string}1${string}`, false);
        const bytes = bech32.fromWords(words);
        if (prefix !== SUI_PREFIX || bytes.length !== 33 || bytes[0] !== SUI_ED25519_FLAG) throw invalid();
        return bytes.slice(1);
      }
    }
  } catch (error) {
    if (error instanceof Error && error.message.includes(format)) throw error;
    throw invalid();
  }
}
