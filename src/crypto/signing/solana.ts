import { ed25519 } from "@noble/curves/ed25519.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { decodeHex, SigningInputError } from "./errors.js";

/** Solana's compact-u16 (shortvec) length prefix. */
function readCompactU16(bytes: Uint8Array, offset: number): { value: number; next: number } {
  let value = 0;
  for (let i = 0; i < 3; i++) {
    const byte = bytes[offset + i];
    if (byte === undefined) throw new SigningInputError("unsignedTransaction: truncated Solana transaction");
    value |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) === 0) return { value, next: offset + i + 1 };
  }
  throw new SigningInputError("unsignedTransaction: malformed length in Solana transaction");
}

/**
 * Signs a serialized Solana transaction (legacy or versioned, signature slots included, as
 * `serialize({ requireAllSignatures: false })` produces): the Ed25519 signature over the message goes
 * into the slot of the key among the required signers. Returns the transaction as hex.
 */
export function signSolanaTransaction(unsignedTransaction: string, privateKey: Uint8Array, publicKey: Uint8Array): string {
  const bytes = decodeHex(unsignedTransaction, "unsignedTransaction");
  const signatures = readCompactU16(bytes, 0);
  const messageStart = signatures.next + signatures.value * 64;
  const message = bytes.slice(messageStart);
  const versioned = (message[0] ?? 0) & 0x80;
  const header = versioned ? 1 : 0;
  const requiredSignatures = message[header];
  if (requiredSignatures === undefined || message.length < header + 3) throw new SigningInputError("unsignedTransaction: truncated Solana transaction");
  if (requiredSignatures !== signatures.value) {
    throw new SigningInputError(`unsignedTransaction: has ${signatures.value} signature slots but its message requires ${requiredSignatures} signatures`);
  }
  const keys = readCompactU16(message, header + 3);
  if (keys.next + keys.value * 32 > message.length) throw new SigningInputError("unsignedTransaction: truncated Solana account keys");
  let slot = -1;
  for (let i = 0; i < requiredSignatures; i++) {
    const key = message.slice(keys.next + i * 32, keys.next + (i + 1) * 32);
    if (bytesToHex(key) === bytesToHex(publicKey)) slot = i;
  }
  if (slot < 0) throw new SigningInputError("unsignedTransaction: the signing key is not one of the transaction's required signers");
  const signed = bytes.slice();
  signed.set(ed25519.sign(message, privateKey), signatures.next + slot * 64);
  return bytesToHex(signed);
}
