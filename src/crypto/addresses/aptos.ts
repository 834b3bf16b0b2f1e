import { sha3_256 } from "@noble/hashes/sha3.js";
import { bytesToHex } from "@noble/hashes/utils.js";

/** Aptos: 0x ‖ hex of SHA3-256(public key ‖ 0x00), the single-key Ed25519 authentication key. */
export const aptosAddress = (ed25519PublicKey: Uint8Array): string =>
  `0x${bytesToHex(sha3_256(new Uint8Array([...ed25519PublicKey, 0x00])))}`;
