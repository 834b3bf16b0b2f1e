import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { parseTransaction, serializeTransaction, type TransactionSerializable } from "viem";
import { signEcdsa } from "./curves.js";
import { decodeHex, SigningInputError } from "./errors.js";

const FIELD = "unsignedTransaction";

/**
 * Signs an Ethereum transaction given as hex (with or without 0x) of its unsigned serialization —
 * what @turnkey/viem (`serializeTransaction(tx)` minus 0x; EIP-4844 without sidecars) and
 * @turnkey/ethers (`tx.unsignedSerialized` minus 0x) send: legacy (pre-EIP-155, or EIP-155 with
 * `[…, chainId, 0, 0]`), EIP-2930, EIP-1559, EIP-4844 and EIP-7702. A signature already present is
 * replaced. The digest is keccak256 of the unsigned serialization (for EIP-4844 the body without
 * the blob sidecars). Returns the signed serialization as hex WITHOUT 0x: both packages prepend
 * `0x` to `signedTransaction` themselves. Legacy transactions get v = 27/28 or, with a chain id,
 * chainId·2 + 35/36; typed ones yParity 0/1.
 */
export function signEthereumTransaction(unsignedTransaction: string, privateKey: Uint8Array): string {
  const bytes = decodeHex(unsignedTransaction, FIELD);
  if (bytes.length === 0) throw new SigningInputError(`${FIELD}: empty Ethereum transaction`);
  let transaction: TransactionSerializable;
  try {
    const {
      r: _r,
      s: _s,
      v: _v,
      yParity: _yParity,
      ...unsigned
    } = parseTransaction(`0x${bytesToHex(bytes)}`) as TransactionSerializable & {
      r?: unknown;
      s?: unknown;
      v?: unknown;
      yParity?: unknown;
    };
    transaction = unsigned as TransactionSerializable;
  } catch (error) {
    throw new SigningInputError(`${FIELD}: not an Ethereum transaction: ${(error as Error).message.split("\n")[0]}`);
  }
  const body = transaction.type === "eip4844" ? ({ ...transaction, sidecars: false } as TransactionSerializable) : transaction;
  let signingBytes: Uint8Array;
  try {
    signingBytes = decodeHex(serializeTransaction(body), FIELD);
  } catch (error) {
    throw new SigningInputError(`${FIELD}: cannot serialize this Ethereum transaction: ${(error as Error).message.split("\n")[0]}`);
  }
  const signature = signEcdsa("CURVE_SECP256K1", keccak_256(signingBytes), privateKey);
  const yParity = Number.parseInt(signature.v, 16);
  const signed = serializeTransaction(transaction, {
    r: `0x${signature.r}`,
    s: `0x${signature.s}`,
    yParity,
    ...(transaction.type === "legacy" || transaction.type === undefined ? { v: BigInt(27 + yParity) } : {}),
  });
  return signed.slice(2);
}
