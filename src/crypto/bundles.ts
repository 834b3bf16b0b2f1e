import { p256 } from "@noble/curves/nist.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { createBase58check } from "@scure/base";
import { hpkeOpen, hpkeSeal } from "./hpke.js";
import type { ServerKey } from "./server-keys.js";
import { signBundle } from "./signed-bundle.js";

/** Bundles: how secrets leave Strongroom, sealed with the API's HPKE (hpke.ts). */
const base58check = createBase58check(sha256);

export class InvalidTargetKeyError extends Error {
  constructor(field: string) {
    super(`${field}: must be an uncompressed P-256 public key (130 hex characters starting with 04)`);
    this.name = "InvalidTargetKeyError";
  }
}

/** Parses a client's target key: uncompressed P-256, hex. */
export function parseTargetPublicKey(hex: string, field = "targetPublicKey"): Uint8Array {
  if (!/^04[0-9a-fA-F]{128}$/.test(hex)) throw new InvalidTargetKeyError(field);
  const bytes = new Uint8Array(Buffer.from(hex, "hex"));
  try {
    p256.Point.fromBytes(bytes).assertValidity();
  } catch {
    throw new InvalidTargetKeyError(field);
  }
  return bytes;
}

/** A credential bundle: bs58check(compressed encapsulated key ‖ ciphertext), opened by decryptCredentialBundle. */
export async function credentialBundle(plaintext: Uint8Array, target: Uint8Array): Promise<string> {
  const { encapsulatedKey, ciphertext } = await hpkeSeal(plaintext, target);
  const compressed = p256.Point.fromBytes(encapsulatedKey).toBytes(true);
  return base58check.encode(new Uint8Array([...compressed, ...ciphertext]));
}

/** An export bundle: `plaintext` sealed to `target`, in a signed envelope naming the organization. */
export async function exportBundle(plaintext: Uint8Array, target: Uint8Array, organizationId: string, signer: ServerKey): Promise<string> {
  const { encapsulatedKey, ciphertext } = await hpkeSeal(plaintext, target);
  return signBundle({ encappedPublic: bytesToHex(encapsulatedKey), ciphertext: bytesToHex(ciphertext), organizationId }, signer);
}

export class InvalidEncryptedBundleError extends Error {}

/**
 * Opens an import's `encryptedBundle` — JSON {encappedPublic, ciphertext}, as encryptWalletToBundle
 * and encryptPrivateKeyToBundle produce — with the one-time import key it was sealed to.
 */
export async function openEncryptedBundle(encryptedBundle: string, recipientPrivateKey: Uint8Array): Promise<Uint8Array> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(encryptedBundle);
  } catch {
    throw new InvalidEncryptedBundleError('encryptedBundle: not JSON; expected {"encappedPublic", "ciphertext"}');
  }
  const { encappedPublic, ciphertext } = (parsed ?? {}) as Record<string, unknown>;
  if (
    typeof encappedPublic !== "string" ||
    !/^04[0-9a-fA-F]{128}$/.test(encappedPublic) ||
    typeof ciphertext !== "string" ||
    !/^([0-9a-fA-F]{2})+$/.test(ciphertext)
  ) {
    throw new InvalidEncryptedBundleError('encryptedBundle: expected {"encappedPublic": uncompressed P-256 hex, "ciphertext": hex}');
  }
  const sealed = {
    encapsulatedKey: new Uint8Array(Buffer.from(encappedPublic, "hex")),
    ciphertext: new Uint8Array(Buffer.from(ciphertext, "hex")),
  };
  try {
    return await hpkeOpen(sealed, { privateKey: recipientPrivateKey, publicKey: p256.getPublicKey(recipientPrivateKey, false) });
  } catch {
    throw new InvalidEncryptedBundleError(
      "encryptedBundle: cannot be decrypted with this user's import key; was it encrypted to the importBundle of the latest init_import for this user?",
    );
  }
}
