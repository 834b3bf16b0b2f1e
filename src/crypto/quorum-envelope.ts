import { p256 } from "@noble/curves/nist.js";
import { createDecipheriv, createHmac } from "node:crypto";
import type { ServerKey } from "./server-keys.js";

/**
 * The QOS P-256 envelope @turnkey/crypto's `quorumKeyEncrypt` makes (what `encryptOauth2ClientSecret`
 * sends, as hex). It is not HPKE: an ephemeral P-256 key, ECDH x-coordinate, AES-256 key = the first
 * 32 bytes of HMAC-SHA512(key = ephemeral ‖ recipient ‖ x, "qos_encryption_hmac_message"), AES-256-GCM
 * with additional data ephemeral ‖ 65 ‖ recipient ‖ 65. Borsh layout: nonce [u8; 12], ephemeral public
 * key [u8; 65] (uncompressed), ciphertext‖tag as Vec<u8> (u32 little-endian length first).
 */
const NONCE_BYTES = 12;
const PUBLIC_KEY_BYTES = 65;
const TAG_BYTES = 16;
const HMAC_MESSAGE = Buffer.from("qos_encryption_hmac_message", "utf8");

export class InvalidEnvelopeError extends Error {}

export function openQuorumEnvelope(envelopeHex: string, recipient: ServerKey): Uint8Array {
  if (!/^([0-9a-fA-F]{2})+$/.test(envelopeHex)) throw new InvalidEnvelopeError("it is not hex");
  const bytes = Buffer.from(envelopeHex, "hex");
  const header = NONCE_BYTES + PUBLIC_KEY_BYTES + 4;
  if (bytes.length < header + TAG_BYTES) throw new InvalidEnvelopeError(`it is ${bytes.length} bytes, too short for an envelope`);
  const nonce = bytes.subarray(0, NONCE_BYTES);
  const ephemeral = bytes.subarray(NONCE_BYTES, NONCE_BYTES + PUBLIC_KEY_BYTES);
  const length = bytes.readUInt32LE(NONCE_BYTES + PUBLIC_KEY_BYTES);
  if (length !== bytes.length - header || length < TAG_BYTES)
    throw new InvalidEnvelopeError("its ciphertext length does not match the envelope");
  const sealed = bytes.subarray(header);

  let shared: Uint8Array;
  try {
    shared = p256.getSharedSecret(recipient.secret, ephemeral, false).subarray(1, 33);
  } catch {
    throw new InvalidEnvelopeError("its ephemeral public key is not a P-256 point");
  }
  const recipientPublic = Buffer.from(recipient.publicKeyHex, "hex");
  const preImage = Buffer.concat([ephemeral, recipientPublic, shared]);
  const aesKey = createHmac("sha512", preImage).update(HMAC_MESSAGE).digest().subarray(0, 32);
  const aad = Buffer.concat([ephemeral, Buffer.from([PUBLIC_KEY_BYTES]), recipientPublic, Buffer.from([PUBLIC_KEY_BYTES])]);
  const decipher = createDecipheriv("aes-256-gcm", aesKey, nonce);
  decipher.setAAD(aad);
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  try {
    return new Uint8Array(Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]));
  } catch {
    throw new InvalidEnvelopeError("it was not encrypted to this server's encryption key (authentication failed)");
  }
}
