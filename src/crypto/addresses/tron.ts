import { keccak_256 } from "@noble/hashes/sha3.js";
import { base58check } from "./hashes.js";

/** Tron: base58check of 0x41 ‖ the last 20 bytes of keccak-256 of the uncompressed key (without 04). */
export const tronAddress = (uncompressedPublicKey: Uint8Array): string =>
  base58check.encode(new Uint8Array([0x41, ...keccak_256(uncompressedPublicKey.slice(1)).slice(-20)]));
