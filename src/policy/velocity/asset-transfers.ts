/**
 * What a transaction moves, per asset, measured through the parsers the `eth.tx` and `solana.tx` keywords read:
 * the hook an activity definition declares as `assetTransfers` (sign_transaction below; a sending activity
 * passes its own transaction's fields to `ethereumCallTransfers` or `solanaTransfers`). Every transfer the
 * transaction makes counts, whoever's funds it moves (an ERC-20 transferFrom, an SPL transfer by a delegate).
 */
import { viem } from "../../crypto/chain-libraries.js";
import type { ParsedTransactions } from "../../crypto/signing/parsed-transactions.js";
import type { AssetTransfer } from "../../operations/activity-definition.js";
import { solanaTransaction } from "../keywords/solana.js";

/** The fields of an Ethereum call that move value: its chain (none: a legacy transaction any chain accepts), recipient, value and calldata. */
export interface EthereumCall {
  chainId?: bigint;
  to?: string;
  value: bigint;
  data: string;
}

/** The native value of an Ethereum call, and the amount of an ERC-20 `transfer` or `transferFrom` it makes. */
export function ethereumCallTransfers(call: EthereumCall): AssetTransfer[] {
  const chain = call.chainId === undefined ? undefined : call.chainId.toString();
  const transfers: AssetTransfer[] = [];
  if (call.value > 0n) transfers.push({ namespace: "eip155", chain, kind: "native", token: "", amount: call.value });
  if (call.to && call.data.length >= 10) {
    try {
      const { functionName, args } = viem().decodeFunctionData({ abi: viem().erc20Abi, data: call.data as `0x${string}` });
      const amount = functionName === "transfer" ? args[1] : functionName === "transferFrom" ? args[2] : undefined;
      if (amount !== undefined && amount > 0n)
        transfers.push({ namespace: "eip155", chain, kind: "token", token: call.to.toLowerCase(), amount });
    } catch {
      // calldata that is not an ERC-20 call moves no token a control measures
    }
  }
  return transfers;
}

/** System-program transfers (SOL) and SPL Transfer / TransferChecked / TransferCheckedWithFee of a serialized Solana transaction. */
export function solanaTransfers(unsignedTransaction: string): AssetTransfer[] {
  const parsed = solanaTransaction(unsignedTransaction) as
    { transfers: Array<{ amount: bigint }>; spl_transfers: Array<{ amount: bigint; token_mint: string }> } | undefined;
  if (!parsed) return [];
  return [
    ...parsed.transfers.map((t): AssetTransfer => ({ namespace: "solana", kind: "native", token: "", amount: t.amount })),
    ...parsed.spl_transfers.map((t): AssetTransfer => ({
      namespace: "solana",
      kind: "token",
      token: t.token_mint === "" ? undefined : t.token_mint,
      amount: t.amount,
    })),
  ].filter((t) => t.amount > 0n);
}

/** What sign_transaction's unsigned transaction moves (Ethereum and Solana; other chains are not measured). */
export function signedTransactionTransfers(type: string, unsignedTransaction: string, parsed: ParsedTransactions): AssetTransfer[] {
  if (type === "TRANSACTION_TYPE_ETHEREUM") {
    try {
      return ethereumCallTransfers(parsed.ethereum(unsignedTransaction));
    } catch {
      return []; // a transaction that does not parse is refused by signing before it could execute
    }
  }
  if (type === "TRANSACTION_TYPE_SOLANA") return solanaTransfers(unsignedTransaction);
  return [];
}

/**
 * What a sending activity moves, read from its filled parameters: its fill step writes the transaction that will be
 * sent as `type` and `unsignedTransaction` (signed, for eth_send_raw_transaction), as sign_transaction's are.
 */
export function sentTransactionTransfers(params: Record<string, unknown>, parsed: ParsedTransactions): AssetTransfer[] {
  const { type, unsignedTransaction } = params;
  return typeof type === "string" && typeof unsignedTransaction === "string"
    ? signedTransactionTransfers(type, unsignedTransaction, parsed)
    : [];
}
