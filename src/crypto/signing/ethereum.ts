import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { parseTransaction, serializeTransaction, type TransactionSerializable } from "viem";
import { signEcdsa } from "./curves.js";
import { decodeHex, SigningInputError } from "./errors.js";

/**
 * Signs an unsigned Ethereum transaction (legacy with or without EIP-155, EIP-2930, EIP-1559,
 * EIP-4844 body, EIP-7702), given as hex of its unsigned serialization; returns the signed
 * serialization as hex without 0x, as @turnkey/viem and @turnkey/ethers expect.
 */
export function signEthereumTransaction(unsignedTransaction: string, privateKey: Uint8Array): string {
  const bytes = decodeHex(unsignedTransaction, "unsignedTransaction");
  let transaction: TransactionSerializable;
  try {
    const { r: _r, s: _s, v: _v, yParity: _yParity, ...unsigned } = parseTransaction(`0x${bytesToHex(bytes)}`) as TransactionSerializable & { r?: unknown; s?: unknown; v?: unknown; yParity?: unknown };
    transaction = unsigned as TransactionSerializable;
  } catch (error) {
    throw new SigningInputError(`unsignedTransaction: not an Ethereum transaction: ${(error as Error).message.split("\n")[0]}`);
  }
  const digest = keccak_256(decodeHex(serializeTransaction(transaction), "unsignedTransaction"));
  const signature = signEcdsa("CURVE_SECP256K1", digest, privateKey);
  const yParity = Number.parseInt(signature.v, 16);
  const signed = serializeTransaction(transaction, {
    r: `0x${signature.r}`,
    s: `0x${signature.s}`,
    yParity,
    ...(transaction.type === "legacy" || transaction.type === undefined ? { v: BigInt(27 + yParity) } : {}),
  });
  return signed.slice(2);
}
