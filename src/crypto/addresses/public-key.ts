import { p256 } from "@noble/curves/nist.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { Curve } from "../hd/derive.js";
import { secp256k1ConvertPoint } from "../libsecp256k1.js";

/** ADDRESS_FORMAT_COMPRESSED: the public key itself, hex (33-byte SEC1, or the 32-byte Ed25519 key). */
export const compressedAddress = (publicKey: Uint8Array): string => bytesToHex(publicKey);

/** The 65-byte SEC1 form (04 ‖ X ‖ Y) of a compressed secp256k1 or P-256 key. */
export function uncompressedKey(curve: Exclude<Curve, "CURVE_ED25519">, compressed: Uint8Array): Uint8Array {
  return curve === "CURVE_P256" ? p256.Point.fromBytes(compressed).toBytes(false) : secp256k1ConvertPoint(compressed, false);
}
