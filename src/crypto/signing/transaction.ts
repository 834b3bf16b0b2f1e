import { signBitcoinTransaction } from "./bitcoin.js";
import { SigningInputError } from "./errors.js";
import { signEthereumTransaction } from "./ethereum.js";
import { ParsedTransactions } from "./parsed-transactions.js";
import type { SigningKey } from "./raw-payload.js";
import { signSolanaTransaction } from "./solana.js";
import { signTronTransaction } from "./tron.js";

export const TRANSACTION_TYPES = [
  "TRANSACTION_TYPE_ETHEREUM",
  "TRANSACTION_TYPE_SOLANA",
  "TRANSACTION_TYPE_TRON",
  "TRANSACTION_TYPE_BITCOIN",
  "TRANSACTION_TYPE_TEMPO",
] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

const CURVE_OF_TYPE: Record<Exclude<TransactionType, "TRANSACTION_TYPE_TEMPO">, SigningKey["curve"]> = {
  TRANSACTION_TYPE_ETHEREUM: "CURVE_SECP256K1",
  TRANSACTION_TYPE_SOLANA: "CURVE_ED25519",
  TRANSACTION_TYPE_TRON: "CURVE_SECP256K1",
  TRANSACTION_TYPE_BITCOIN: "CURVE_SECP256K1",
};

/**
 * Signs an unsigned transaction of the given chain; the result is what sign_transaction returns. `parsed` is the
 * request's parse of it, when one was made (the dry run's, the policy decision's).
 */
export function signTransaction(
  key: SigningKey & { publicKey: Uint8Array },
  type: TransactionType,
  unsignedTransaction: string,
  parsed: ParsedTransactions = new ParsedTransactions(),
): string {
  if (type === "TRANSACTION_TYPE_TEMPO") throw new SigningInputError("type: TRANSACTION_TYPE_TEMPO is not supported by this server");
  if (key.curve !== CURVE_OF_TYPE[type])
    throw new SigningInputError(`signWith: ${type} needs a ${CURVE_OF_TYPE[type]} key, but this key is ${key.curve}`);
  switch (type) {
    case "TRANSACTION_TYPE_ETHEREUM":
      return signEthereumTransaction(unsignedTransaction, key.privateKey, parsed);
    case "TRANSACTION_TYPE_SOLANA":
      return signSolanaTransaction(unsignedTransaction, key.privateKey, key.publicKey);
    case "TRANSACTION_TYPE_TRON":
      return signTronTransaction(unsignedTransaction, key.privateKey);
    case "TRANSACTION_TYPE_BITCOIN":
      return signBitcoinTransaction(unsignedTransaction, key.privateKey);
  }
}
