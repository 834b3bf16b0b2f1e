import { ed25519 } from "@noble/curves/ed25519.js";
import { p256 } from "@noble/curves/nist.js";
import { schnorr } from "@noble/curves/secp256k1.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { taprootTweakPrivKey } from "@scure/btc-signer/utils.js";
import { secp256k1SignRecoverable } from "../libsecp256k1.js";

/** A signature as the API returns it: hex without 0x; v is the recovery id ("00"/"01"), "00" where there is none. */
export interface RawSignature {
  r: string;
  s: string;
  v: string;
}

/** ECDSA over a 32-byte digest (RFC 6979 nonce, low S), with the recovery id. */
export function signEcdsa(curve: "CURVE_SECP256K1" | "CURVE_P256", digest: Uint8Array, privateKey: Uint8Array): RawSignature {
  if (curve === "CURVE_SECP256K1") {
    const { signature, recoveryId } = secp256k1SignRecoverable(digest, privateKey);
    return { r: bytesToHex(signature.slice(0, 32)), s: bytesToHex(signature.slice(32)), v: recoveryId.toString(16).padStart(2, "0") };
  }
  const signature = p256.sign(digest, privateKey, { prehash: false, lowS: true, format: "recovered" });
  return { r: bytesToHex(signature.slice(1, 33)), s: bytesToHex(signature.slice(33, 65)), v: signature[0]!.toString(16).padStart(2, "0") };
}

/** Ed25519 over the message itself: r and s are the two halves of the 64-byte signature. */
export function signEd25519(message: Uint8Array, privateKey: Uint8Array): RawSignature {
  const signature = ed25519.sign(message, privateKey);
  return { r: bytesToHex(signature.slice(0, 32)), s: bytesToHex(signature.slice(32)), v: "00" };
}

/**
 * BIP-340 Schnorr; with `taprootTweak` the key is first tweaked as BIP-341 prescribes for a key-path
 * spend without a script tree (BIP-86), which is what a P2TR address of this key commits to.
 */
export function signSchnorr(message: Uint8Array, privateKey: Uint8Array, taprootTweak: boolean): RawSignature {
  const key = taprootTweak ? taprootTweakPrivKey(privateKey) : privateKey;
  const signature = schnorr.sign(message, key);
  return { r: bytesToHex(signature.slice(0, 32)), s: bytesToHex(signature.slice(32)), v: "00" };
}
