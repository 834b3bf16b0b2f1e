import { p256 } from "@noble/curves/nist.js";
import { ed25519 } from "@noble/curves/ed25519.js";
import { hmac } from "@noble/hashes/hmac.js";
import { sha512 } from "@noble/hashes/sha2.js";
import { HDKey } from "@scure/bip32";
import { HARDENED, parsePath } from "./path.js";

export type Curve = "CURVE_SECP256K1" | "CURVE_ED25519" | "CURVE_P256";

export interface DerivedKey {
  privateKey: Uint8Array;
  /** secp256k1 and P-256: the compressed SEC1 point; Ed25519: the 32-byte key. */
  publicKey: Uint8Array;
}

const P256_ORDER = p256.Point.Fn.ORDER;

function bytesToBigInt(bytes: Uint8Array): bigint {
  return BigInt(`0x${Buffer.from(bytes).toString("hex") || "0"}`);
}

function bigIntTo32Bytes(value: bigint): Uint8Array {
  return new Uint8Array(Buffer.from(value.toString(16).padStart(64, "0"), "hex"));
}

function ser32(index: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, index >>> 0);
  return bytes;
}

/** SLIP-0010 for Ed25519: hardened derivation only; non-hardened segments are derived as hardened. */
function deriveEd25519(seed: Uint8Array, indexes: number[]): DerivedKey {
  let digest = hmac(sha512, new TextEncoder().encode("ed25519 seed"), seed);
  for (const index of indexes) {
    const data = new Uint8Array([0, ...digest.slice(0, 32), ...ser32((index | HARDENED) >>> 0)]);
    digest = hmac(sha512, digest.slice(32), data);
  }
  const privateKey = digest.slice(0, 32);
  return { privateKey, publicKey: ed25519.getPublicKey(privateKey) };
}

/** SLIP-0010 for NIST P-256 ("Nist256p1 seed"), with its retry rules for out-of-range values. */
function deriveP256(seed: Uint8Array, indexes: number[]): DerivedKey {
  let input: Uint8Array = seed;
  let digest = hmac(sha512, new TextEncoder().encode("Nist256p1 seed"), input);
  while (bytesToBigInt(digest.slice(0, 32)) === 0n || bytesToBigInt(digest.slice(0, 32)) >= P256_ORDER) {
    input = digest;
    digest = hmac(sha512, new TextEncoder().encode("Nist256p1 seed"), input);
  }
  let key: Uint8Array = digest.slice(0, 32);
  let chainCode: Uint8Array = digest.slice(32);
  for (const index of indexes) {
    const hardened = index >= HARDENED;
    let data = hardened ? new Uint8Array([0, ...key, ...ser32(index)]) : new Uint8Array([...p256.getPublicKey(key, true), ...ser32(index)]);
    for (;;) {
      const i = hmac(sha512, chainCode, data);
      const il = bytesToBigInt(i.slice(0, 32));
      const child = (il + bytesToBigInt(key)) % P256_ORDER;
      if (il < P256_ORDER && child !== 0n) {
        key = bigIntTo32Bytes(child);
        chainCode = i.slice(32);
        break;
      }
      data = new Uint8Array([1, ...i.slice(32), ...ser32(index)]);
    }
  }
  return { privateKey: key, publicKey: p256.getPublicKey(key, true) };
}

/** Derives the key of one wallet account from the wallet's BIP-39 seed. */
export function deriveKey(seed: Uint8Array, curve: Curve, path: string): DerivedKey {
  const { indexes } = parsePath(path);
  switch (curve) {
    case "CURVE_SECP256K1": {
      const node = HDKey.fromMasterSeed(seed).derive(path.replace(/[hH]/g, "'"));
      if (!node.privateKey || !node.publicKey) throw new Error(`secp256k1 derivation of ${path} produced no key`);
      return { privateKey: node.privateKey, publicKey: node.publicKey };
    }
    case "CURVE_ED25519":
      return deriveEd25519(seed, indexes);
    case "CURVE_P256":
      return deriveP256(seed, indexes);
  }
}
