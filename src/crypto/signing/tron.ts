import { sha256 } from "@noble/hashes/sha2.js";
import { signEcdsa } from "./curves.js";
import { decodeHex, SigningInputError } from "./errors.js";

/**
 * Signs a Tron transaction given as the hex of its protobuf `raw_data` (TronWeb's `raw_data_hex`):
 * ECDSA secp256k1 over sha256(raw_data); returns the 65-byte signature r ‖ s ‖ v (recovery id) as
 * hex, the form TronWeb puts in the transaction's `signature` list.
 */
export function signTronTransaction(unsignedTransaction: string, privateKey: Uint8Array): string {
  const rawData = decodeHex(unsignedTransaction, "unsignedTransaction");
  if (rawData.length === 0) throw new SigningInputError("unsignedTransaction: empty Tron raw_data");
  const signature = signEcdsa("CURVE_SECP256K1", sha256(rawData), privateKey);
  return `${signature.r}${signature.s}${signature.v}`;
}
