import { base58 } from "@scure/base";

/** A Solana address is the base58 of the Ed25519 public key. */
export const solanaAddress = (publicKey: Uint8Array): string => base58.encode(publicKey);
