import { sha256 } from "@noble/hashes/sha2.js";
import { bech32 } from "@scure/base";
import { hash160 } from "./hashes.js";

/** Cosmos SDK account address: bech32 of RIPEMD-160(SHA-256(compressed secp256k1 key)). */
export const cosmosSecp256k1Address = (prefix: string, compressedPublicKey: Uint8Array): string =>
  bech32.encode(prefix, bech32.toWords(hash160(compressedPublicKey)));

/** Cosmos SDK rule for Ed25519 keys: the first 20 bytes of SHA-256(key). */
export const cosmosEd25519Address = (prefix: string, publicKey: Uint8Array): string =>
  bech32.encode(prefix, bech32.toWords(sha256(publicKey).slice(0, 20)));
