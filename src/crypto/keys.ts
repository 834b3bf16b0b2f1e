import { ed25519 } from "@noble/curves/ed25519.js";
import { p256 } from "@noble/curves/nist.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import type { Curve } from "./hd/derive.js";
import { secp256k1PublicKey } from "./libsecp256k1.js";

const WEIERSTRASS = { CURVE_SECP256K1: secp256k1, CURVE_P256: p256 } as const;

/** A new private key from the CSPRNG: a scalar for secp256k1 and P-256, a 32-byte seed for Ed25519. */
export function generatePrivateKey(curve: Curve): Uint8Array {
  return curve === "CURVE_ED25519" ? ed25519.utils.randomSecretKey() : WEIERSTRASS[curve].utils.randomSecretKey();
}

/** Compressed SEC1 for secp256k1 and P-256; the 32-byte key for Ed25519. */
export function publicKeyOf(curve: Curve, privateKey: Uint8Array): Uint8Array {
  if (curve === "CURVE_SECP256K1") return secp256k1PublicKey(privateKey);
  return curve === "CURVE_ED25519" ? ed25519.getPublicKey(privateKey) : p256.getPublicKey(privateKey, true);
}

export function isValidPrivateKey(curve: Curve, privateKey: Uint8Array): boolean {
  if (privateKey.length !== 32) return false;
  return curve === "CURVE_ED25519" || WEIERSTRASS[curve].utils.isValidSecretKey(privateKey);
}
