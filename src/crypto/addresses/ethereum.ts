import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex } from "@noble/hashes/utils.js";

/** EIP-55 checksummed address of an uncompressed secp256k1 public key (65 bytes, 04 prefix). */
export function ethereumAddress(uncompressedPublicKey: Uint8Array): string {
  const lower = bytesToHex(keccak_256(uncompressedPublicKey.slice(1)).slice(-20));
  const hash = bytesToHex(keccak_256(new TextEncoder().encode(lower)));
  return `0x${[...lower].map((c, i) => (parseInt(hash[i]!, 16) >= 8 ? c.toUpperCase() : c)).join("")}`;
}
