import { base58 } from "@scure/base";
import type { Value } from "../language/index.js";

const SYSTEM_PROGRAM = "11111111111111111111111111111111";
const TOKEN_PROGRAMS = new Set(["TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb"]);
/** Accounts resolved through an address lookup table are shown as this literal, as the API does. */
const LOOKUP = "ADDRESS_TABLE_LOOKUP";

class Reader {
  offset = 0;
  constructor(private readonly bytes: Uint8Array) {}
  u8(): number {
    const value = this.bytes[this.offset++];
    if (value === undefined) throw new Error("truncated");
    return value;
  }
  compact(): number {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = this.u8();
      value |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
    }
  }
  take(length: number): Uint8Array {
    if (this.offset + length > this.bytes.length) throw new Error("truncated");
    const out = this.bytes.slice(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }
}

const u64 = (bytes: Uint8Array, at: number) => new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(at, true);

/** solana.tx from a serialized transaction (hex, signature slots included). */
export function solanaTransaction(unsignedTransaction: string): Value | undefined {
  try {
    const reader = new Reader(new Uint8Array(Buffer.from(unsignedTransaction.replace(/^0x/i, ""), "hex")));
    reader.take(reader.compact() * 64);
    const versioned = (reader["bytes"][reader.offset]! & 0x80) !== 0;
    if (versioned) reader.u8();
    const [required, readonlySigned, readonlyUnsigned] = [reader.u8(), reader.u8(), reader.u8()];
    const keys = Array.from({ length: reader.compact() }, () => base58.encode(reader.take(32)));
    const recentBlockhash = base58.encode(reader.take(32));
    const rawInstructions = Array.from({ length: reader.compact() }, () => ({
      program: reader.u8(),
      accounts: Array.from({ length: reader.compact() }, () => reader.u8()),
      data: reader.take(reader.compact()),
    }));
    const lookups = versioned
      ? Array.from({ length: reader.compact() }, () => ({
          address_table_key: base58.encode(reader.take(32)),
          writable_indexes: Array.from({ length: reader.compact() }, () => BigInt(reader.u8())),
          readonly_indexes: Array.from({ length: reader.compact() }, () => BigInt(reader.u8())),
        }))
      : [];
    const loadedWritable = lookups.reduce((n, l) => n + l.writable_indexes.length, 0);
    const keyAt = (index: number) => keys[index] ?? LOOKUP;
    const writable = (index: number) =>
      index < keys.length
        ? index < required
          ? index < required - readonlySigned
          : index < keys.length - readonlyUnsigned
        : index < keys.length + loadedWritable;
    const instructions = rawInstructions.map((ix) => ({
      program_key: keyAt(ix.program),
      accounts: ix.accounts.map((a) => ({ account_key: keyAt(a), signer: a < required, writable: writable(a) })),
      instruction_data_hex: Buffer.from(ix.data).toString("hex"),
      address_table_lookups: ix.accounts.some((a) => a >= keys.length) ? lookups : [],
    }));
    const transfers: Value[] = [];
    const splTransfers: Value[] = [];
    for (const ix of rawInstructions) {
      const program = keyAt(ix.program);
      const accounts = ix.accounts.map(keyAt);
      if (program === SYSTEM_PROGRAM && ix.data.length >= 12 && new DataView(ix.data.buffer, ix.data.byteOffset).getUint32(0, true) === 2) {
        transfers.push({ from: accounts[0] ?? "", to: accounts[1] ?? "", amount: u64(ix.data, 4) });
      } else if (TOKEN_PROGRAMS.has(program)) {
        const spl = splTransfer(ix.data, accounts);
        if (spl) splTransfers.push(spl);
      }
    }
    return {
      account_keys: [
        ...keys,
        ...Array.from({ length: lookups.reduce((n, l) => n + l.writable_indexes.length + l.readonly_indexes.length, 0) }, () => LOOKUP),
      ],
      program_keys: [...new Set(instructions.map((i) => i.program_key))],
      instructions,
      transfers,
      recent_blockhash: recentBlockhash,
      spl_transfers: splTransfers,
      address_table_lookups: lookups,
    };
  } catch {
    return undefined;
  }
}

/** Top-level Transfer (3), TransferChecked (12) and Token-2022 TransferCheckedWithFee (26/1). */
function splTransfer(data: Uint8Array, accounts: string[]): Value | undefined {
  if (data[0] === 3 && data.length >= 9) {
    return {
      from: accounts[0] ?? "",
      to: accounts[1] ?? "",
      owner: accounts[2] ?? "",
      signers: accounts.slice(3),
      amount: u64(data, 1),
      token_mint: "",
    };
  }
  if (data[0] === 12 && data.length >= 10) {
    return {
      from: accounts[0] ?? "",
      token_mint: accounts[1] ?? "",
      to: accounts[2] ?? "",
      owner: accounts[3] ?? "",
      signers: accounts.slice(4),
      amount: u64(data, 1),
    };
  }
  if (data[0] === 26 && data[1] === 1 && data.length >= 11) {
    return {
      from: accounts[0] ?? "",
      token_mint: accounts[1] ?? "",
      to: accounts[2] ?? "",
      owner: accounts[3] ?? "",
      signers: accounts.slice(4),
      amount: u64(data, 2),
    };
  }
  return undefined;
}
