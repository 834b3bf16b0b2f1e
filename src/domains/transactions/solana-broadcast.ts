import type { Base64EncodedWireTransaction, Signature } from "@solana/kit";
import { isUnreachable, type SolanaChain } from "../../chains/chains.js";
import { solanaKit } from "../../crypto/chain-libraries.js";
import type { SendTransactionRow, TxError } from "../../records/send-transaction.js";
import type { StepOutcome } from "./evm-broadcast.js";
import { blockhashOf, readSolanaWire } from "./solana-message.js";

const ALREADY_PROCESSED = /already (been )?processed|alreadyprocessed/i;

const json = (value: unknown) => JSON.stringify(value, (_, v: unknown) => (typeof v === "bigint" ? v.toString() : v));

/** A refusal at preflight (simulation), with what the node said: its code and message, the transaction error and the logs. */
function preflightFailure(error: unknown): TxError {
  const context = solanaKit().isSolanaError(error)
    ? (error.context as { __code?: number; logs?: string[]; err?: unknown; unitsConsumed?: bigint })
    : {};
  const message = (error as Error).message;
  return {
    message: `The node refused the transaction at preflight: ${message}`,
    solana: {
      source: "preflight",
      ...(context.__code !== undefined ? { rpcCode: context.__code } : {}),
      rpcMessage: message,
      ...(context.err !== undefined ? { transactionErrorJson: json(context.err) } : {}),
      ...(context.logs ? { logs: context.logs } : {}),
    },
  };
}

/**
 * One look at a Solana send: confirmed already (getSignatureStatuses), else (re)sent — the same signed bytes —
 * while its blockhash is still valid; once the blockhash has expired unconfirmed, it can never land: FAILED.
 */
export async function stepSolanaSend(chain: SolanaChain, row: SendTransactionRow, rebroadcastMs: number, now: Date): Promise<StepOutcome> {
  const signature = row.tx_hash as Signature;
  try {
    const { value } = await chain.call((rpc) => rpc.getSignatureStatuses([signature], { searchTransactionHistory: true }).send());
    const status = value[0];
    if (status && status.confirmationStatus !== "processed") {
      const time = await chain.call((rpc) => rpc.getBlockTime(status.slot).send()).catch(() => null);
      const mined = {
        // The base fee: 5000 lamports per signature (a compute-budget priority fee is not counted).
        fee: 5000n * BigInt(readSolanaWire(Buffer.from(row.signed_transaction, "base64").toString("hex")).requiredSigners.length),
        ...(time !== null ? { blockTimestamp: new Date(Number(time) * 1000) } : {}),
      };
      if (status.err)
        return {
          kind: "failed",
          mined: true,
          blockNumber: status.slot,
          ...mined,
          error: {
            message: `The transaction failed on chain: ${json(status.err)}`,
            solana: { source: "execution", transactionErrorJson: json(status.err) },
          },
        };
      return { kind: "included", blockNumber: status.slot, blockHash: "", ...mined };
    }
    if (status) return { kind: "waiting" };
    if (row.status === "BROADCASTING") {
      const blockhash = blockhashOf(readSolanaWire(Buffer.from(row.signed_transaction, "base64").toString("hex")));
      const valid = await chain.call((rpc) => rpc.isBlockhashValid(blockhash as never, { commitment: "confirmed" }).send());
      if (!valid.value)
        return {
          kind: "failed",
          mined: false,
          error: { message: `its blockhash ${blockhash} expired before the transaction was confirmed on ${row.chain}` },
        };
    }
    const due = row.status === "INITIALIZED" || !row.broadcast_at || now.getTime() - row.broadcast_at.getTime() >= rebroadcastMs;
    if (!due) return { kind: "waiting" };
    try {
      await chain.call((rpc) =>
        rpc
          .sendTransaction(row.signed_transaction as Base64EncodedWireTransaction, { encoding: "base64", preflightCommitment: "confirmed" })
          .send(),
      );
      return { kind: "broadcast" };
    } catch (error) {
      if (isUnreachable(error)) throw error;
      if (ALREADY_PROCESSED.test((error as Error).message)) return { kind: "broadcast" };
      return { kind: "failed", mined: false, error: preflightFailure(error) };
    }
  } catch (error) {
    return { kind: "retry", error: `the node of ${row.chain} did not answer: ${(error as Error).message}`, refused: false };
  }
}
