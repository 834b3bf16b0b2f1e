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
export async function hpkeSeal(plaintext: Uint8Array, target: Uint8Array): Promise<{ encapsulatedKey: Uint8Array; ciphertext: Uint8Array }> {
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
 * A signed bundle (export bundles): JSON with `data` = hex of JSON {encappedPublic, ciphertext,
 * organizationId}, signed (ECDSA P-256 over sha256 of those bytes, DER) by the server's signer key,
 * whose uncompressed public key is `enclaveQuorumPublic`.
 */
export async function signedBundle(plaintext: Uint8Array, target: Uint8Array, organizationId: string, signer: ServerKey): Promise<string> {
  const { encapsulatedKey, ciphertext } = await hpkeSeal(plaintext, target);
  const data = new TextEncoder().encode(JSON.stringify({ encappedPublic: bytesToHex(encapsulatedKey), ciphertext: bytesToHex(ciphertext), organizationId }));
  return JSON.stringify({
    version: "v1.0.0",
    data: bytesToHex(data),
    dataSignature: bytesToHex(signer.signDer(data)),
    enclaveQuorumPublic: signer.publicKeyHex,
  });
}
