import { ed25519 } from "@noble/curves/ed25519.js";
import { equalBytes } from "@noble/curves/utils.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { decodeHex, SigningInputError } from "./errors.js";

const FIELD = "unsignedTransaction";

/** Solana's compact-u16 (shortvec) length prefix. */
function readCompactU16(bytes: Uint8Array, offset: number, what: string): { value: number; next: number } {
  let value = 0;
  for (let i = 0; i < 3; i++) {
    const byte = bytes[offset + i];
    if (byte === undefined) throw new SigningInputError(`${FIELD}: truncated Solana transaction (${what})`);
    value |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) === 0) return { value, next: offset + i + 1 };
  }
  throw new SigningInputError(`${FIELD}: malformed length of ${what} in Solana transaction`);
}

/**
 * Signs a serialized Solana transaction, legacy or versioned (v0), as @turnkey/solana sends it: the
 * whole wire transaction with its signature slots (`tx.serialize({ requireAllSignatures: false })`:
 * compact-u16 count, 64 bytes per required signer, empty slots zeroed), in hex. The Ed25519
 * signature over the message bytes (everything after the slots) goes into the slot of the key among
 * the message's required signers; other slots are kept. Returns the transaction as hex without 0x,
 * which @turnkey/solana decodes with `Transaction.from` / `VersionedTransaction.deserialize`.
 */
export function signSolanaTransaction(unsignedTransaction: string, privateKey: Uint8Array, publicKey: Uint8Array): string {
  const bytes = decodeHex(unsignedTransaction, FIELD);
  if (bytes.length === 0) throw new SigningInputError(`${FIELD}: empty Solana transaction`);
  const slots = readCompactU16(bytes, 0, "signature count");
  const messageStart = slots.next + slots.value * 64;
  if (messageStart >= bytes.length) {
    throw new SigningInputError(
      `${FIELD}: not a serialized Solana transaction with its signature slots (send tx.serialize({ requireAllSignatures: false }), not the message alone)`,
    );
  }
  const message = bytes.subarray(messageStart);
  const prefix = message[0]!;
  let header = 0;
  if (prefix & 0x80) {
    const version = prefix & 0x7f;
    if (version !== 0) throw new SigningInputError(`${FIELD}: Solana message version ${version} is not supported (legacy and v0 are)`);
    header = 1;
  }
  if (message.length < header + 3) throw new SigningInputError(`${FIELD}: truncated Solana message header`);
  const requiredSignatures = message[header]!;
  if (requiredSignatures !== slots.value) {
    throw new SigningInputError(
      `${FIELD}: has ${slots.value} signature slots but its message requires ${requiredSignatures} signatures (send the whole transaction, not the message alone)`,
    );
  }
  const keys = readCompactU16(message, header + 3, "account keys");
  if (keys.value < requiredSignatures)
    throw new SigningInputError(`${FIELD}: Solana message lists fewer account keys than required signers`);
  if (keys.next + keys.value * 32 + 32 > message.length)
    throw new SigningInputError(`${FIELD}: truncated Solana account keys or blockhash`);
  let slot = -1;
  for (let i = 0; i < requiredSignatures; i++) {
    if (equalBytes(message.subarray(keys.next + i * 32, keys.next + (i + 1) * 32), publicKey)) {
      slot = i;
      break;
    }
  }
  if (slot < 0) {
    throw new SigningInputError(`${FIELD}: the signing key is not one of the transaction's ${requiredSignatures} required signers`);
  }
  const signed = bytes.slice();
  signed.set(ed25519.sign(message, privateKey), slots.next + slot * 64);
  return bytesToHex(signed);
}
