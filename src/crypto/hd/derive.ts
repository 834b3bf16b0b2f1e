import { ed25519 } from "@noble/curves/ed25519.js";
import { createECDH, createHmac } from "node:crypto";
import { secp256k1PublicKey } from "../libsecp256k1.js";
import { HARDENED, parsePath } from "./path.js";

export type Curve = "CURVE_SECP256K1" | "CURVE_ED25519" | "CURVE_P256";

export interface DerivedKey {
  privateKey: Uint8Array;
  /** secp256k1 and P-256: the compressed SEC1 point; Ed25519: the 32-byte key. */
  publicKey: Uint8Array;
}

// HMAC-SHA512 is native (node:crypto); secp256k1's point multiplications are libsecp256k1's (../libsecp256k1.ts,
// about a third of OpenSSL's CPU time and of @noble's), P-256's OpenSSL's (a twentieth of @noble's). A secp256k1
// account at m/44'/60'/0'/0/0 costs three point multiplications (the two non-hardened parents and the key)
// instead of the public key of every level a general HD key computes. Ed25519's public key stays with
// @noble/curves: through a KeyObject (PKCS#8 in, JWK out) it cost slightly more CPU. test/crypto/hd-derivation.test.ts checks it against
// @scure/bip32 and ed25519-hd-key on thousands of paths.

const SECP256K1_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const P256_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

const hmacSha512 = (key: Uint8Array | string, ...data: Uint8Array[]): Buffer => {
  const mac = createHmac("sha512", key);
  for (const part of data) mac.update(part);
  return mac.digest();
};

function ser32(index: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(index >>> 0);
  return bytes;
}

const toBigInt = (bytes: Uint8Array): bigint => BigInt(`0x${Buffer.from(bytes).toString("hex") || "0"}`);
const to32Bytes = (value: bigint): Buffer => Buffer.from(value.toString(16).padStart(64, "0"), "hex");

/** The compressed SEC1 public key of a valid P-256 private key (OpenSSL's point multiplication). */
function compressedP256Point(privateKey: Uint8Array): Buffer {
  const ecdh = createECDH("prime256v1");
  ecdh.setPrivateKey(privateKey);
  return ecdh.getPublicKey(null, "compressed");
}

/** BIP-32 for secp256k1 (an invalid key at any level is an error, as @scure/bip32 has it; odds 2^-127). */
function deriveSecp256k1(seed: Uint8Array, indexes: number[]): DerivedKey {
  if (seed.length < 16 || seed.length > 64) throw new Error(`HD seed must be 16 to 64 bytes, got ${seed.length}`);
  let digest = hmacSha512("Bitcoin seed", seed);
  let key = toBigInt(digest.subarray(0, 32));
  if (key === 0n || key >= SECP256K1_ORDER) throw new Error("HD master key is not a valid secp256k1 key");
  for (const index of indexes) {
    const chainCode = digest.subarray(32);
    const parent = to32Bytes(key);
    const data = index >= HARDENED ? Buffer.concat([Buffer.alloc(1), parent]) : secp256k1PublicKey(parent);
    digest = hmacSha512(chainCode, data, ser32(index));
    const tweak = toBigInt(digest.subarray(0, 32));
    key = (key + tweak) % SECP256K1_ORDER;
    if (tweak >= SECP256K1_ORDER || key === 0n) throw new Error("HD child key is not a valid secp256k1 key");
  }
  const privateKey = to32Bytes(key);
  return { privateKey: new Uint8Array(privateKey), publicKey: secp256k1PublicKey(privateKey) };
}

/** SLIP-0010 for Ed25519: hardened derivation only; non-hardened segments are derived as hardened. */
function deriveEd25519(seed: Uint8Array, indexes: number[]): DerivedKey {
  let digest = hmacSha512("ed25519 seed", seed);
  for (const index of indexes) {
    digest = hmacSha512(digest.subarray(32), Buffer.alloc(1), digest.subarray(0, 32), ser32((index | HARDENED) >>> 0));
  }
  const privateKey = new Uint8Array(digest.subarray(0, 32));
  return { privateKey, publicKey: ed25519.getPublicKey(privateKey) };
}

/** SLIP-0010 for NIST P-256 ("Nist256p1 seed"), with its retry rules for out-of-range values. */
function deriveP256(seed: Uint8Array, indexes: number[]): DerivedKey {
  let digest = hmacSha512("Nist256p1 seed", seed);
  while (toBigInt(digest.subarray(0, 32)) === 0n || toBigInt(digest.subarray(0, 32)) >= P256_ORDER) {
    digest = hmacSha512("Nist256p1 seed", digest);
  }
  let key: Buffer = digest.subarray(0, 32);
  let chainCode: Buffer = digest.subarray(32);
  for (const index of indexes) {
    let data: Uint8Array = index >= HARDENED ? Buffer.concat([Buffer.alloc(1), key]) : compressedP256Point(key);
    for (;;) {
      const i = hmacSha512(chainCode, data, ser32(index));
      const il = toBigInt(i.subarray(0, 32));
      const child = (il + toBigInt(key)) % P256_ORDER;
      if (il < P256_ORDER && child !== 0n) {
        key = to32Bytes(child);
        chainCode = i.subarray(32);
        break;
      }
      data = Buffer.concat([Buffer.from([1]), i.subarray(32)]);
    }
  }
  return { privateKey: new Uint8Array(key), publicKey: new Uint8Array(compressedP256Point(key)) };
}

/** Derives the key of one wallet account from the wallet's BIP-39 seed. */
export function deriveKey(seed: Uint8Array, curve: Curve, path: string): DerivedKey {
  const { indexes } = parsePath(path);
  switch (curve) {
    case "CURVE_SECP256K1":
      return deriveSecp256k1(seed, indexes);
    case "CURVE_ED25519":
      return deriveEd25519(seed, indexes);
    case "CURVE_P256":
      return deriveP256(seed, indexes);
  }
}
