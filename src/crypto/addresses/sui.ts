import { blake2b } from "@noble/hashes/blake2.js";
import { bytesToHex } from "@noble/hashes/utils.js";

/** Sui: 0x ‖ hex of BLAKE2b-256(flag ‖ public key); flag 0x00 is Ed25519. */
export const suiAddress = (ed25519PublicKey: Uint8Array): string =>
  `0x${bytesToHex(blake2b(new Uint8Array([0x00, ...ed25519PublicKey]), { dkLen: 32 }))}`;
