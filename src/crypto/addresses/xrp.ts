import { sha256 } from "@noble/hashes/sha2.js";
import { base58xrp } from "@scure/base";
import type { Curve } from "../hd/derive.js";
import { hash160 } from "./hashes.js";

/**
 * XRP Ledger classic address (r…): the Ripple base58 alphabet over 0x00 ‖ account id ‖ checksum,
 * the account id being hash160 of the public key — for Ed25519 keys, of 0xED ‖ key, as XRPL does.
 */
export function xrpAddress(curve: Curve, publicKey: Uint8Array): string {
  const key = curve === "CURVE_ED25519" ? new Uint8Array([0xed, ...publicKey]) : publicKey;
  const payload = new Uint8Array([0x00, ...hash160(key)]);
  const checksum = sha256(sha256(payload)).slice(0, 4);
  return base58xrp.encode(new Uint8Array([...payload, ...checksum]));
}
