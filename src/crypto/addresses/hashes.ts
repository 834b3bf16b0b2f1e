import { ripemd160 } from "@noble/hashes/legacy.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { createBase58check } from "@scure/base";

/** RIPEMD-160 of SHA-256: the key hash of Bitcoin-family and Cosmos addresses. */
export const hash160 = (bytes: Uint8Array): Uint8Array => ripemd160(sha256(bytes));

export const base58check = createBase58check(sha256);
