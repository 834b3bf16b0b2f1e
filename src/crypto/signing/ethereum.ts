import { hexToBytes } from "@noble/hashes/utils.js";
import { signEcdsa } from "./curves.js";
import { ParsedTransactions } from "./parsed-transactions.js";

/**
 * Signs an Ethereum transaction given as hex (with or without 0x) of its serialization — what @turnkey/viem
 * (`serializeTransaction(tx)` minus 0x; EIP-4844 without sidecars) and @turnkey/ethers (`tx.unsignedSerialized`
 * minus 0x) send, populated or not: legacy, EIP-2930, EIP-1559, EIP-4844 and EIP-7702 (decodeEthereumTransaction).
 * A signature already present is replaced. The digest is keccak256 of the canonical unsigned serialization.
 * Returns the signed serialization as hex WITHOUT 0x: both packages prepend `0x` to `signedTransaction`
 * themselves. Legacy transactions get v = 27/28 or, with a chain id, chainId·2 + 35/36; typed ones yParity 0/1.
 * `parsed` holds the request's parse and digest when they were made before (see ParsedTransactions).
 */
export function signEthereumTransaction(
  unsignedTransaction: string,
  privateKey: Uint8Array,
  parsed: ParsedTransactions = new ParsedTransactions(),
): string {
  const transaction = parsed.ethereum(unsignedTransaction);
  const signature = signEcdsa("CURVE_SECP256K1", parsed.ethereumDigest(unsignedTransaction), privateKey);
  return transaction.withSignature(Number.parseInt(signature.v, 16), hexToBytes(signature.r), hexToBytes(signature.s)).slice(2);
}
