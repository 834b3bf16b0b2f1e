import { sha256 } from "@noble/hashes/sha2.js";
import { hexToBytes } from "@noble/hashes/utils.js";
import { createBase58check } from "@scure/base";

/**
 * Kinds of strings that have several spellings of one value. A policy compares such a value canonically on
 * both sides (the keyword's and the literal's), so `'04AB…'`, `'0x04ab…'` and the compressed form of the same
 * key are one key to an allow policy and to a deny policy alike.
 * - hex: case-insensitive, optional 0x (calldata, payloads, hashes, scripts).
 * - public_key: hex as above; an uncompressed SEC1 point (04‖x‖y) is the same key as its compressed form.
 * - address: an Ethereum address in any checksum case; bech32 in either case; a Tron address in its hex form (41…).
 * - email: case-insensitive.
 */
export type Canon = "hex" | "public_key" | "address" | "email";

const base58check = createBase58check(sha256);
const HEX = /^(?:0x)?[0-9a-f]*$/i;
const ETHEREUM_ADDRESS = /^0x[0-9a-f]{40}$/i;
const TRON_HEX_ADDRESS = /^(?:0x)?41[0-9a-f]{40}$/i;
const BECH32 = /^[a-z0-9]{1,83}1[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{6,}$/i;

/** Hex without its 0x prefix, in lower case; anything that is not hex is left as it is. */
function foldHex(value: string): string {
  return HEX.test(value) ? value.replace(/^0x/i, "").toLowerCase() : value;
}

/** 04‖x‖y → (02|03)‖x by the parity of y: the same key on any curve, with no curve arithmetic. */
function compressPoint(hex: string): string {
  if (hex.length !== 130 || !hex.startsWith("04")) return hex;
  const yIsOdd = (parseInt(hex.slice(-1), 16) & 1) === 1;
  return `${yIsOdd ? "03" : "02"}${hex.slice(2, 66)}`;
}

function canonicalAddress(value: string): string {
  if (ETHEREUM_ADDRESS.test(value)) return value.toLowerCase();
  if (TRON_HEX_ADDRESS.test(value)) return base58check.encode(hexToBytes(value.replace(/^0x/i, "")));
  if (BECH32.test(value) && (value === value.toLowerCase() || value === value.toUpperCase())) return value.toLowerCase();
  return value;
}

/** The one spelling of a value of the kind; a value that is not of that shape is returned unchanged. */
export function canonical(value: string, canon: Canon): string {
  switch (canon) {
    case "hex":
      return foldHex(value);
    case "public_key":
      return compressPoint(foldHex(value));
    case "address":
      return canonicalAddress(value);
    case "email":
      return value.toLowerCase();
  }
}

/** `target.contains(needle)` on a string of the kind: both folded (case, 0x), without changing the target's length (no compression). */
export function containsCanonically(target: string, needle: string, canon: Canon): boolean {
  switch (canon) {
    case "hex":
    case "public_key":
      return foldHex(target).includes(foldHex(needle));
    case "address": {
      const caseless = canonicalAddress(target) === target.toLowerCase();
      return caseless ? target.toLowerCase().includes(needle.toLowerCase()) : target.includes(needle);
    }
    case "email":
      return target.toLowerCase().includes(needle.toLowerCase());
  }
}

/** Values of a data-driven shape (ABI arguments, EIP-712 values) whose kind is unknown: 0x-hex compares in any case. */
export function sameUntypedString(a: string, b: string): boolean {
  return a === b || (/^0x[0-9a-f]+$/i.test(a) && /^0x[0-9a-f]+$/i.test(b) && a.toLowerCase() === b.toLowerCase());
}
