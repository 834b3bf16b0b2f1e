import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { viem } from "../chain-libraries.js";
import { decodeHex, SigningInputError } from "./errors.js";

const FIELD = "unsignedTransaction";

/** RLP read and written as bytes: hex strings of megabytes of calldata, converted back and forth, took most of a second. */
type Rlp = Uint8Array | RlpList;
type RlpList = readonly Rlp[];

export type EthereumTransactionType = "legacy" | "eip2930" | "eip1559" | "eip4844" | "eip7702";

/** The fields of each envelope, in order, before the signature; `int` fields are RLP integers (empty = 0). */
const LAYOUTS: Record<EthereumTransactionType, { prefix?: number; fields: Array<[name: string, kind: "int" | "to" | "bytes" | "list"]> }> =
  {
    legacy: {
      fields: [
        ["nonce", "int"],
        ["gasPrice", "int"],
        ["gas", "int"],
        ["to", "to"],
        ["value", "int"],
        ["data", "bytes"],
      ],
    },
    eip2930: {
      prefix: 0x01,
      fields: [
        ["chainId", "int"],
        ["nonce", "int"],
        ["gasPrice", "int"],
        ["gas", "int"],
        ["to", "to"],
        ["value", "int"],
        ["data", "bytes"],
        ["accessList", "list"],
      ],
    },
    eip1559: {
      prefix: 0x02,
      fields: [
        ["chainId", "int"],
        ["nonce", "int"],
        ["maxPriorityFeePerGas", "int"],
        ["maxFeePerGas", "int"],
        ["gas", "int"],
        ["to", "to"],
        ["value", "int"],
        ["data", "bytes"],
        ["accessList", "list"],
      ],
    },
    eip4844: {
      prefix: 0x03,
      fields: [
        ["chainId", "int"],
        ["nonce", "int"],
        ["maxPriorityFeePerGas", "int"],
        ["maxFeePerGas", "int"],
        ["gas", "int"],
        ["to", "to"],
        ["value", "int"],
        ["data", "bytes"],
        ["accessList", "list"],
        ["maxFeePerBlobGas", "int"],
        ["blobVersionedHashes", "list"],
      ],
    },
    eip7702: {
      prefix: 0x04,
      fields: [
        ["chainId", "int"],
        ["nonce", "int"],
        ["maxPriorityFeePerGas", "int"],
        ["maxFeePerGas", "int"],
        ["gas", "int"],
        ["to", "to"],
        ["value", "int"],
        ["data", "bytes"],
        ["accessList", "list"],
        ["authorizationList", "list"],
      ],
    },
  };

const TYPE_OF_PREFIX = new Map(
  Object.entries(LAYOUTS).flatMap(([type, layout]) =>
    layout.prefix === undefined ? [] : [[layout.prefix, type as EthereumTransactionType]],
  ),
);

/**
 * An Ethereum transaction as every client reads it: integers as numbers (an empty RLP string is zero, as in
 * ethers, viem and the execution clients — unpopulated transactions serialize their zero fields that way).
 */
export interface EthereumTransaction {
  type: EthereumTransactionType;
  /** Legacy: the EIP-155 chain id, when the transaction commits to one. */
  chainId?: bigint;
  nonce: bigint;
  gas: bigint;
  gasPrice?: bigint;
  maxPriorityFeePerGas?: bigint;
  maxFeePerGas?: bigint;
  maxFeePerBlobGas?: bigint;
  value: bigint;
  /** Lowercase 0x-address, or undefined for a contract creation. */
  to?: string;
  /** Lowercase 0x-hex. */
  data: string;
  /** The canonical serialization that is signed: its keccak256 is the digest. */
  signingPayload: Uint8Array;
  /** The signed serialization (0x-hex) for a signature's y parity and r, s (32 bytes each). */
  withSignature(yParity: number, r: Uint8Array, s: Uint8Array): string;
}

/**
 * Reads an Ethereum transaction from the hex of its serialization (with or without 0x; unsigned, or signed —
 * the signature is dropped): legacy (pre-EIP-155, or EIP-155 `[…, chainId, 0, 0]`), EIP-2930, EIP-1559,
 * EIP-4844 (the body, or the network form with blob sidecars) and EIP-7702. Integers are re-encoded
 * canonically (empty for zero, no leading zero bytes), so the payload signed is the one ethers and viem
 * compute when they parse the result.
 */
export function decodeEthereumTransaction(hex: string): EthereumTransaction {
  const bytes = decodeHex(hex, FIELD);
  if (bytes.length === 0) throw new SigningInputError(`${FIELD}: empty Ethereum transaction`);
  const prefix = bytes[0]!;
  const type: EthereumTransactionType | undefined = prefix >= 0xc0 ? "legacy" : TYPE_OF_PREFIX.get(prefix);
  if (!type) throw new SigningInputError(`${FIELD}: not an Ethereum transaction: unknown transaction type 0x${prefix.toString(16)}`);
  let decoded: Rlp;
  try {
    decoded = viem().fromRlp(type === "legacy" ? bytes : bytes.subarray(1), "bytes") as Rlp;
  } catch (error) {
    throw new SigningInputError(`${FIELD}: not an Ethereum transaction: ${(error as Error).message.split("\n")[0]}`);
  }
  if (!Array.isArray(decoded)) throw new SigningInputError(`${FIELD}: not an Ethereum transaction: the RLP payload is not a list`);
  // EIP-4844's network form wraps the body: [body, blobs, commitments, proofs].
  const sidecars = type === "eip4844" && Array.isArray(decoded[0]) ? (decoded as RlpList).slice(1) : undefined;
  const items = (sidecars ? decoded[0] : decoded) as RlpList;
  const layout = LAYOUTS[type];
  const count = layout.fields.length;

  let legacyChainId: bigint | undefined;
  if (type === "legacy") {
    if (items.length !== 6 && items.length !== 9)
      throw new SigningInputError(`${FIELD}: a legacy Ethereum transaction has 6 or 9 fields, not ${items.length}`);
    if (items.length === 9) {
      const [v, r, s] = [integer(items[6], "v"), integer(items[7], "r"), integer(items[8], "s")];
      // Unsigned EIP-155 is [..., chainId, 0, 0]; signed, v carries the chain id (v = chainId·2 + 35/36) or not (27/28).
      if (r === 0n && s === 0n) legacyChainId = v;
      else if (v >= 35n) legacyChainId = (v - 35n) / 2n;
    }
  } else if (items.length !== count && items.length !== count + 3) {
    throw new SigningInputError(`${FIELD}: a ${type} transaction has ${count} fields (${count + 3} signed), not ${items.length}`);
  }

  const values: Record<string, bigint | string> = {};
  const unsigned: Rlp[] = layout.fields.map(([name, kind], index) => {
    const item = items[index]!;
    if (kind === "int") {
      const value = integer(item, name);
      values[name] = value;
      return canonical(value);
    }
    if (kind === "list") {
      if (!Array.isArray(item)) throw new SigningInputError(`${FIELD}: ${name} must be an RLP list`);
      return item;
    }
    if (Array.isArray(item)) throw new SigningInputError(`${FIELD}: ${name} must be an RLP string`);
    const bytes = item as Uint8Array;
    if (kind === "to" && bytes.length !== 0 && bytes.length !== 20)
      throw new SigningInputError(`${FIELD}: to must be empty or a 20-byte address`);
    values[name] = `0x${hexOf(bytes)}`;
    return bytes;
  });
  if (legacyChainId !== undefined) unsigned.push(canonical(legacyChainId), EMPTY, EMPTY);
  const envelope = (fields: Rlp[]) => {
    const rlp = viem().toRlp(fields, "bytes");
    return layout.prefix === undefined ? rlp : prefixed(layout.prefix, rlp);
  };
  const body = unsigned.slice(0, count);
  return {
    type,
    chainId: type === "legacy" ? legacyChainId : (values.chainId as bigint),
    nonce: values.nonce as bigint,
    gas: values.gas as bigint,
    gasPrice: values.gasPrice as bigint | undefined,
    maxPriorityFeePerGas: values.maxPriorityFeePerGas as bigint | undefined,
    maxFeePerGas: values.maxFeePerGas as bigint | undefined,
    maxFeePerBlobGas: values.maxFeePerBlobGas as bigint | undefined,
    value: values.value as bigint,
    to: values.to === "0x" ? undefined : (values.to as string),
    data: values.data as string,
    signingPayload: envelope(unsigned),
    withSignature(yParity, r, s) {
      const v =
        type !== "legacy"
          ? BigInt(yParity)
          : legacyChainId !== undefined
            ? legacyChainId * 2n + 35n + BigInt(yParity)
            : 27n + BigInt(yParity);
      const signed = [...body, canonical(v), canonical(toInteger(r)), canonical(toInteger(s))];
      if (sidecars) return `0x${hexOf(prefixed(layout.prefix!, viem().toRlp([signed, ...sidecars], "bytes")))}`;
      return `0x${hexOf(envelope(signed))}`;
    },
  };
}

const EMPTY = new Uint8Array(0);

/** Lowercase hex of bytes, through Buffer: a megabyte in milliseconds. */
const hexOf = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");

/**
 * The type byte before an RLP payload. Copied, not spread: spreading a megabyte of calldata into an array literal
 * took most of a second, inside the activity's transaction.
 */
function prefixed(prefix: number, rlp: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(rlp.length + 1);
  bytes[0] = prefix;
  bytes.set(rlp, 1);
  return bytes;
}

/** An RLP integer: big-endian, at most 32 bytes; empty is zero (leading zero bytes are read, not kept). */
function integer(item: Rlp | undefined, name: string): bigint {
  if (item === undefined || Array.isArray(item)) throw new SigningInputError(`${FIELD}: ${name} must be an RLP integer`);
  const bytes = item as Uint8Array;
  if (bytes.length > 32) throw new SigningInputError(`${FIELD}: ${name} is larger than 256 bits`);
  return toInteger(bytes);
}

const toInteger = (bytes: Uint8Array) => (bytes.length === 0 ? 0n : BigInt(`0x${bytesToHex(bytes)}`));

/** The canonical RLP string of an integer: zero is empty, otherwise no leading zero bytes. */
function canonical(value: bigint): Uint8Array {
  if (value === 0n) return EMPTY;
  const hex = value.toString(16);
  return hexToBytes(hex.length % 2 ? `0${hex}` : hex);
}
