import { p256 } from "@noble/curves/nist.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { createBase58check } from "@scure/base";
import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from "@hpke/core";
import type { ServerKey } from "./server-keys.js";

/**
 * Bundles: how secrets leave Strongroom. HPKE base mode (RFC 9180) with DHKEM(P-256, HKDF-SHA256),
 * HKDF-SHA256 and AES-256-GCM, info "turnkey_hpke", and — unlike plain HPKE — the encapsulated key
 * and the recipient key (both uncompressed) as AEAD additional data, as @turnkey/crypto expects.
 */
const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });
const INFO = new TextEncoder().encode("turnkey_hpke");
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

/** Encrypts `plaintext` to `target`; returns the uncompressed encapsulated key and the ciphertext. */
export async function hpkeSeal(
  plaintext: Uint8Array,
  target: Uint8Array,
): Promise<{ encapsulatedKey: Uint8Array; ciphertext: Uint8Array }> {
  const recipientPublicKey = await suite.kem.deserializePublicKey(target.slice().buffer);
  const sender = await suite.createSenderContext({ recipientPublicKey, info: INFO.slice().buffer });
  const encapsulatedKey = new Uint8Array(sender.enc);
  const aad = new Uint8Array([...encapsulatedKey, ...target]);
  const ciphertext = new Uint8Array(await sender.seal(plaintext.slice().buffer, aad.buffer));
  return { encapsulatedKey, ciphertext };
}

/** A credential bundle: bs58check(compressed encapsulated key ‖ ciphertext), opened by decryptCredentialBundle. */
export async function credentialBundle(plaintext: Uint8Array, target: Uint8Array): Promise<string> {
  const { encapsulatedKey, ciphertext } = await hpkeSeal(plaintext, target);
  const compressed = p256.Point.fromBytes(encapsulatedKey).toBytes(true);
  return base58check.encode(new Uint8Array([...compressed, ...ciphertext]));
}

/**
 * The signed envelope of export and import bundles: `data` is the hex of a JSON object, signed
 * (ECDSA P-256 over sha256 of those bytes, DER) by the server's signer key, whose uncompressed
 * public key is `enclaveQuorumPublic` — what @turnkey/crypto verifies before trusting the data.
 */
export function signBundle(content: Record<string, string>, signer: ServerKey): string {
  const data = new TextEncoder().encode(JSON.stringify(content));
  return JSON.stringify({
    version: "v1.0.0",
    data: bytesToHex(data),
    dataSignature: bytesToHex(signer.signDer(data)),
    enclaveQuorumPublic: signer.publicKeyHex,
  });
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
  const recipientPublicKey = p256.getPublicKey(recipientPrivateKey, false);
  const encapsulatedKey = new Uint8Array(Buffer.from(encappedPublic, "hex"));
  try {
    const recipientKey = await suite.kem.importKey("raw", recipientPrivateKey.slice().buffer, false);
    const recipient = await suite.createRecipientContext({ recipientKey, enc: encapsulatedKey.slice().buffer, info: INFO.slice().buffer });
    const aad = new Uint8Array([...encapsulatedKey, ...recipientPublicKey]);
    return new Uint8Array(await recipient.open(new Uint8Array(Buffer.from(ciphertext, "hex")).buffer, aad.buffer));
  } catch {
    throw new InvalidEncryptedBundleError(
      "encryptedBundle: cannot be decrypted with this user's import key; was it encrypted to the importBundle of the latest init_import for this user?",
    );
  }
}
