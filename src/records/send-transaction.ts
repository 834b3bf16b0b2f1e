import { Type, type Static } from "@sinclair/typebox";
import { v7 as uuidv7 } from "uuid";
import { notFound } from "../errors.js";
import type { Queryable } from "../store/database.js";

/** Where a sent transaction stands: not yet accepted by a node, accepted, mined, or given up on (or reverted). */
export type SendStatus = "INITIALIZED" | "BROADCASTING" | "INCLUDED" | "FAILED";

export interface SendTransactionRow {
  id: string;
  organization_id: string;
  activity_id: string;
  chain: string;
  family: "evm" | "solana";
  from_address: string;
  nonce: string | null;
  /** 0x-hex of the signed transaction (EVM), or base64 of the signed wire transaction (Solana). */
  signed_transaction: string;
  /** The EVM transaction hash, or the Solana signature (base58). */
  tx_hash: string;
  status: SendStatus;
  error: TxError | null;
  block_number: string | null;
  block_hash: string | null;
  /** When its block was made, and the fee it paid (atomic units of the native asset), once mined. */
  block_timestamp: Date | null;
  fee: string | null;
  attempts: number;
  last_error: string | null;
  broadcast_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const RevertChainEntry = Type.Object({
  address: Type.Optional(Type.String()),
  errorType: Type.String(),
  displayMessage: Type.String(),
  unknown: Type.Optional(Type.Object({ selector: Type.Optional(Type.String()), data: Type.Optional(Type.String()) })),
  native: Type.Optional(
    Type.Object({ nativeType: Type.String(), message: Type.Optional(Type.String()), panicCode: Type.Optional(Type.String()) }),
  ),
  custom: Type.Optional(Type.Object({ errorName: Type.String(), paramsJson: Type.String() })),
});
export type RevertChainEntry = Static<typeof RevertChainEntry>;

export const TxError = Type.Object({
  message: Type.String(),
  revertChain: Type.Optional(Type.Array(RevertChainEntry)),
  eth: Type.Optional(Type.Object({ revertChain: Type.Array(RevertChainEntry) })),
  solana: Type.Optional(
    Type.Object({
      source: Type.Optional(Type.String()),
      rpcCode: Type.Optional(Type.Integer()),
      rpcMessage: Type.Optional(Type.String()),
      transactionErrorJson: Type.Optional(Type.String()),
      logs: Type.Optional(Type.Array(Type.String())),
    }),
  ),
});
export type TxError = Static<typeof TxError>;

/** get_send_transaction_status's answer. */
export const SendTransactionStatusRecord = Type.Object({
  txStatus: Type.String(),
  eth: Type.Optional(Type.Object({ txHash: Type.Optional(Type.String()) })),
  solana: Type.Optional(Type.Object({ signature: Type.Optional(Type.String()) })),
  txError: Type.Optional(Type.String()),
  error: Type.Optional(TxError),
});

/** A node has seen it (or it was mined): its hash is public from then on. */
const hashIsPublic = (row: SendTransactionRow) => row.status !== "INITIALIZED";

export function sendTransactionStatusRecord(row: SendTransactionRow): Static<typeof SendTransactionStatusRecord> {
  const hash = hashIsPublic(row) ? row.tx_hash : undefined;
  return {
    txStatus: row.status,
    ...(row.family === "evm" ? { eth: hash ? { txHash: hash } : {} } : { solana: hash ? { signature: hash } : {} }),
    ...(row.error ? { txError: row.error.message, error: row.error } : {}),
  };
}

export async function requireSendTransaction(db: Queryable, organizationId: string, id: string): Promise<SendTransactionRow> {
  const [row] = await db.query<SendTransactionRow>("SELECT * FROM send_transactions WHERE id = $1 AND organization_id = $2", [
    id,
    organizationId,
  ]);
  if (!row)
    throw notFound(`sendTransactionStatusId: no sent transaction ${id} in organization ${organizationId}`, "SEND_TRANSACTION_NOT_FOUND");
  return row;
}

export interface NewSendTransaction {
  organizationId: string;
  activityId: string;
  chain: string;
  family: "evm" | "solana";
  from: string;
  nonce?: bigint;
  signedTransaction: string;
  txHash: string;
}

/** Queues a signed transaction for the broadcaster (due at once, by the database's clock), in the activity's transaction: its id is the status id. */
export async function insertSendTransaction(tx: Queryable, send: NewSendTransaction, now: Date): Promise<string> {
  const id = uuidv7();
  await tx.query(
    `INSERT INTO send_transactions (id, organization_id, activity_id, chain, family, from_address, nonce, signed_transaction, tx_hash, status, next_attempt_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'INITIALIZED', now(), $10, $10)`,
    [
      id,
      send.organizationId,
      send.activityId,
      send.chain,
      send.family,
      send.from,
      send.nonce?.toString() ?? null,
      send.signedTransaction,
      send.txHash,
      now,
    ],
  );
  return id;
}
