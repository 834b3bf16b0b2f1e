import { createRequire } from "node:module";

/**
 * secp256k1 by libsecp256k1 (Bitcoin Core's constant-time library) compiled to WebAssembly, as tiny-secp256k1
 * ships it: a public key or an ECDSA signature costs about a third of @noble/curves' CPU time or OpenSSL's
 * (`node:crypto`), 0.08 ms against 0.22–0.28 ms on the benchmark machine (bench/README.md, "secp256k1 by
 * libsecp256k1"). Its signatures are RFC 6979's deterministic ones with low S, byte for byte @noble/curves'
 * (test/crypto/libsecp256k1.test.ts holds both to that on thousands of keys). Loaded on first use, like the chain
 * libraries (src/crypto/chain-libraries.ts): compiling its 1.2 MB module takes about 15 ms, which a server that never
 * derives nor signs with secp256k1 does not pay at start.
 */
const require = createRequire(import.meta.url);
let loaded: typeof import("tiny-secp256k1") | undefined;
const libsecp256k1 = (): typeof import("tiny-secp256k1") => (loaded ??= require("tiny-secp256k1") as typeof import("tiny-secp256k1"));

/** The SEC1 public key of a valid private key: compressed (33 bytes) or not (65). */
export function secp256k1PublicKey(privateKey: Uint8Array, compressed = true): Uint8Array {
  const point = libsecp256k1().pointFromScalar(privateKey, compressed);
  if (!point) throw new Error("not a valid secp256k1 private key");
  return point;
}

/** A compressed or uncompressed SEC1 key in the other form (throws if it is not a point of the curve). */
export function secp256k1ConvertPoint(point: Uint8Array, compressed: boolean): Uint8Array {
  return libsecp256k1().pointCompress(point, compressed);
}

/** ECDSA over a 32-byte digest (RFC 6979 nonce, low S) with its recovery id. */
export function secp256k1SignRecoverable(digest: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recoveryId: number } {
  return libsecp256k1().signRecoverable(digest, privateKey);
}
