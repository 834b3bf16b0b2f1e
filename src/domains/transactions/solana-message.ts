import { base58 } from "@scure/base";
import { invalidArgument } from "../../errors.js";

const FIELD = "unsignedTransaction";

/** What the send needs of a wire transaction: where its blockhash is, its required signers and their slots. */
export interface SolanaWire {
  bytes: Uint8Array;
  /** Offset of the first signature slot. */
  slotsStart: number;
  requiredSigners: string[];
  blockhashOffset: number;
  /** The message's first instruction advances a durable nonce: its "blockhash" is the nonce, not to be replaced. */
  durableNonce: boolean;
}

function compactU16(bytes: Uint8Array, offset: number): { value: number; next: number } {
  let value = 0;
  for (let i = 0; i < 3; i++) {
    const byte = bytes[offset + i];
    if (byte === undefined) break;
    value |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) === 0) return { value, next: offset + i + 1 };
  }
  throw invalidArgument(`${FIELD}: truncated Solana transaction`, [{ field: FIELD, description: "truncated" }]);
}

const SYSTEM_PROGRAM = new Uint8Array(32);

/** Reads a serialized Solana transaction (signature slots and message, legacy or v0) given as hex. */
export function readSolanaWire(hex: string): SolanaWire {
  const refuse = (why: string) => invalidArgument(`${FIELD}: ${why}`, [{ field: FIELD, description: why }]);
  if (!/^(0x)?([0-9a-fA-F]{2})+$/.test(hex)) throw refuse("must be the hex of a serialized Solana transaction");
  const bytes = Uint8Array.from(Buffer.from(hex.replace(/^0x/, ""), "hex"));
  const slots = compactU16(bytes, 0);
  const messageStart = slots.next + slots.value * 64;
  const header = (bytes[messageStart] ?? 0) & 0x80 ? 1 : 0;
  const required = bytes[messageStart + header];
  if (required === undefined || required !== slots.value)
    throw refuse("not a serialized Solana transaction with one signature slot per required signer");
  const keys = compactU16(bytes, messageStart + header + 3);
  const blockhashOffset = keys.next + keys.value * 32;
  if (blockhashOffset + 32 > bytes.length) throw refuse("truncated Solana account keys or blockhash");
  const key = (i: number) => bytes.subarray(keys.next + i * 32, keys.next + (i + 1) * 32);
  const requiredSigners = Array.from({ length: required }, (_, i) => base58.encode(key(i)));
  // The first instruction: program index, accounts, data; AdvanceNonceAccount is the System program's instruction 4.
  let durableNonce = false;
  try {
    const instructions = compactU16(bytes, blockhashOffset + 32);
    if (instructions.value > 0) {
      const program = bytes[instructions.next]!;
      const accounts = compactU16(bytes, instructions.next + 1);
      const data = compactU16(bytes, accounts.next + accounts.value);
      const isSystem = program < keys.value && key(program).every((b, i) => b === SYSTEM_PROGRAM[i]);
      durableNonce = isSystem && data.value >= 4 && new DataView(bytes.buffer, bytes.byteOffset + data.next, 4).getUint32(0, true) === 4;
    }
  } catch {
    // instructions unreadable: not a durable-nonce transaction as far as filling goes
  }
  return { bytes, slotsStart: slots.next, requiredSigners, blockhashOffset, durableNonce };
}

/** The transaction with `blockhash` (base58) as its recent blockhash, as hex. */
export function withBlockhash(wire: SolanaWire, blockhash: string, field = "recentBlockhash"): string {
  let hash: Uint8Array;
  try {
    hash = base58.decode(blockhash);
  } catch {
    hash = new Uint8Array();
  }
  if (hash.length !== 32)
    throw invalidArgument(`${field}: not a base58 blockhash of 32 bytes`, [{ field, description: "not a blockhash" }]);
  const bytes = wire.bytes.slice();
  bytes.set(hash, wire.blockhashOffset);
  return Buffer.from(bytes).toString("hex");
}

export const blockhashOf = (wire: SolanaWire) => base58.encode(wire.bytes.subarray(wire.blockhashOffset, wire.blockhashOffset + 32));

/** Signature slots left empty (all zeros), by signer address. */
export function unsignedSigners(wire: SolanaWire): string[] {
  return wire.requiredSigners.filter((_, i) => {
    const slot = wire.bytes.subarray(wire.slotsStart + i * 64, wire.slotsStart + (i + 1) * 64);
    return slot.every((b) => b === 0);
  });
}

/** The transaction's id: its first signature, base58. */
export const firstSignature = (wire: SolanaWire) => base58.encode(wire.bytes.subarray(wire.slotsStart, wire.slotsStart + 64));

/** The required signers with whether each is writable (the message header's read-only signed count). */
export function signersOf(wire: SolanaWire): Array<{ address: string; writable: boolean }> {
  const messageStart = wire.slotsStart + wire.requiredSigners.length * 64;
  const header = (wire.bytes[messageStart] ?? 0) & 0x80 ? 1 : 0;
  const readonlySigned = wire.bytes[messageStart + header + 1] ?? 0;
  return wire.requiredSigners.map((address, i) => ({ address, writable: i < wire.requiredSigners.length - readonlySigned }));
}

/** The System program's Transfer instructions of the message (static account keys only): source, destination, lamports. */
export function systemTransfers(wire: SolanaWire): Array<{ from: string; to: string; lamports: bigint }> {
  const { bytes } = wire;
  const messageStart = wire.slotsStart + wire.requiredSigners.length * 64;
  const header = (bytes[messageStart] ?? 0) & 0x80 ? 1 : 0;
  const keys = compactU16(bytes, messageStart + header + 3);
  const key = (i: number) => (i < keys.value ? base58.encode(bytes.subarray(keys.next + i * 32, keys.next + (i + 1) * 32)) : undefined);
  const transfers = [];
  const at = compactU16(bytes, wire.blockhashOffset + 32);
  let offset = at.next;
  for (let n = 0; n < at.value; n++) {
    const program = bytes[offset]!;
    const accounts = compactU16(bytes, offset + 1);
    const indexes = Array.from(bytes.subarray(accounts.next, accounts.next + accounts.value));
    const data = compactU16(bytes, accounts.next + accounts.value);
    const payload = bytes.subarray(data.next, data.next + data.value);
    offset = data.next + data.value;
    const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
    if (key(program) === "11111111111111111111111111111111" && payload.length === 12 && view.getUint32(0, true) === 2) {
      const from = key(indexes[0] ?? 255);
      const to = key(indexes[1] ?? 255);
      if (from && to) transfers.push({ from, to, lamports: view.getBigUint64(4, true) });
    }
  }
  return transfers;
}
