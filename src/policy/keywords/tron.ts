import { sha256 } from "@noble/hashes/sha2.js";
import { createBase58check } from "@scure/base";
import type { Value } from "../language/index.js";

const base58check = createBase58check(sha256);

/** The contract types whose parameters the policy language exposes (protocol's ContractType numbers). */
const CONTRACT_TYPES: Record<number, string> = {
  1: "TransferContract",
  31: "TriggerSmartContract",
  46: "AccountPermissionUpdateContract",
  54: "FreezeBalanceV2Contract",
  55: "UnfreezeBalanceV2Contract",
  57: "DelegateResourceContract",
  58: "UnDelegateResourceContract",
};

type Field = { number: number; value: bigint | Uint8Array };

/** A minimal protobuf reader: varints and length-delimited fields (enough for Tron's raw_data). */
function fields(bytes: Uint8Array): Field[] {
  const out: Field[] = [];
  let offset = 0;
  const varint = (): bigint => {
    let result = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = bytes[offset++];
      if (byte === undefined) throw new Error("truncated varint");
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
    }
  };
  while (offset < bytes.length) {
    const key = Number(varint());
    const wire = key & 7;
    if (wire === 0) out.push({ number: key >> 3, value: varint() });
    else if (wire === 2) {
      const length = Number(varint());
      if (offset + length > bytes.length) throw new Error("truncated field");
      out.push({ number: key >> 3, value: bytes.slice(offset, offset + length) });
      offset += length;
    } else if (wire === 1) offset += 8;
    else if (wire === 5) offset += 4;
    else throw new Error(`unsupported wire type ${wire}`);
  }
  return out;
}

const first = (list: Field[], n: number) => list.find((f) => f.number === n)?.value;
const int = (v: Field["value"] | undefined) => (typeof v === "bigint" ? v : 0n);
const hex = (v: Field["value"] | undefined) => (v instanceof Uint8Array ? Buffer.from(v).toString("hex") : "");
const address = (v: Field["value"] | undefined) => (v instanceof Uint8Array && v.length === 21 ? base58check.encode(v) : "");

function permission(bytes: Uint8Array | undefined): Value {
  const f = bytes ? fields(bytes) : [];
  return {
    type: ["Owner", "Witness", "Active"][Number(int(first(f, 1)))] ?? "Owner",
    id: int(first(f, 2)),
    permission_name: new TextDecoder().decode((first(f, 3) as Uint8Array | undefined) ?? new Uint8Array()),
    threshold: int(first(f, 4)),
    parent_id: int(first(f, 5)),
    operations: hex(first(f, 6)),
    keys: f
      .filter((k) => k.number === 7)
      .map((k) => {
        const key = fields(k.value as Uint8Array);
        return { address: address(first(key, 1)), weight: int(first(key, 2)) };
      }),
  };
}

function contract(bytes: Uint8Array): Value {
  const f = fields(bytes);
  const type = CONTRACT_TYPES[Number(int(first(f, 1)))] ?? `ContractType${int(first(f, 1))}`;
  const any = first(f, 2) instanceof Uint8Array ? fields(first(f, 2) as Uint8Array) : [];
  const p = any.length && first(any, 2) instanceof Uint8Array ? fields(first(any, 2) as Uint8Array) : [];
  const base: Record<string, Value> = { type, permission_id: int(first(f, 5)), owner_address: address(first(p, 1)) };
  switch (type) {
    case "TransferContract":
      return { ...base, to_address: address(first(p, 2)), amount: int(first(p, 3)) };
    case "TriggerSmartContract":
      return {
        ...base,
        contract_address: address(first(p, 2)),
        call_value: int(first(p, 3)),
        data: hex(first(p, 4)),
        call_token_value: int(first(p, 5)),
        token_id: int(first(p, 6)),
      };
    case "FreezeBalanceV2Contract":
      return { ...base, frozen_balance: int(first(p, 2)), resource: int(first(p, 3)) === 1n ? "ENERGY" : "BANDWIDTH" };
    case "UnfreezeBalanceV2Contract":
      return { ...base, unfreeze_balance: int(first(p, 2)), resource: int(first(p, 3)) === 1n ? "ENERGY" : "BANDWIDTH" };
    case "DelegateResourceContract":
    case "UnDelegateResourceContract":
      return {
        ...base,
        resource: int(first(p, 2)) === 1n ? "ENERGY" : "BANDWIDTH",
        balance: int(first(p, 3)),
        receiver_address: address(first(p, 4)),
        lock: int(first(p, 5)) === 1n,
        lock_period: int(first(p, 6)),
      };
    case "AccountPermissionUpdateContract":
      return {
        ...base,
        owner: permission(first(p, 2) as Uint8Array | undefined),
        witness: permission(first(p, 3) as Uint8Array | undefined),
        actives: p.filter((x) => x.number === 4).map((x) => permission(x.value as Uint8Array)),
      };
    default:
      return base;
  }
}

/** tron.tx from the hex of a transaction's protobuf raw_data (TronWeb's raw_data_hex). */
export function tronTransaction(unsignedTransaction: string): Value | undefined {
  try {
    const f = fields(new Uint8Array(Buffer.from(unsignedTransaction.replace(/^0x/i, ""), "hex")));
    return {
      ref_block_bytes: hex(first(f, 1)),
      ref_block_hash: hex(first(f, 4)),
      expiration: int(first(f, 8)),
      data: new TextDecoder().decode((first(f, 10) as Uint8Array | undefined) ?? new Uint8Array()),
      contract: f.filter((x) => x.number === 11).map((x) => contract(x.value as Uint8Array)),
      timestamp: int(first(f, 14)),
      fee_limit: int(first(f, 18)),
    };
  } catch {
    return undefined;
  }
}
