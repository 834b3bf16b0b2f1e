import type { Abi, Hex, TransactionReceipt } from "viem";
import type { EvmChain } from "../../chains/chains.js";
import { viem } from "../../crypto/chain-libraries.js";
import type { RevertChainEntry, SendTransactionRow, TxError } from "../../records/send-transaction.js";
import type { Queryable } from "../../store/database.js";
import { revertChainOfTrace, revertEntry, type CallFrame } from "./revert.js";

/** What one look at a send came to; the broadcaster records it. */
export type StepOutcome =
  /** Mined and succeeded. */
  | { kind: "included"; blockNumber: bigint; blockHash: string; blockTimestamp?: Date; fee?: bigint }
  /** Mined and reverted, or never to be mined (its nonce went to another transaction, the node refuses it for good). */
  | { kind: "failed"; error: TxError; blockNumber?: bigint; blockHash?: string; blockTimestamp?: Date; fee?: bigint; mined: boolean }
  /** A node accepted it (or already had it): look again later. */
  | { kind: "broadcast" }
  /** Not mined yet, sent recently enough: look again later. */
  | { kind: "waiting" }
  /** The node did not answer, or refused it for now: try again later, the reason kept. */
  | { kind: "retry"; error: string; refused: boolean };

const ALREADY_KNOWN =
  /already known|known transaction|already imported|alreadyknown|already in (the )?(mem)?pool|transaction already exists/i;
const NONCE_TOO_LOW = /nonce too low|noncetoolow|nonce has already been used|invalid nonce|old nonce/i;

/** The node was not reached (or timed out), as opposed to a node that answered with a refusal. */
function isNetworkError(error: unknown): boolean {
  const { BaseError, HttpRequestError, TimeoutError } = viem();
  return !(error instanceof BaseError) || error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError) !== null;
}

const messageOf = (error: unknown) => (error instanceof viem().BaseError ? error.details || error.shortMessage : (error as Error).message);

async function receiptOf(chain: EvmChain, hash: Hex): Promise<TransactionReceipt | undefined> {
  try {
    return await chain.client.getTransactionReceipt({ hash });
  } catch (error) {
    const { BaseError, TransactionReceiptNotFoundError } = viem();
    if (error instanceof BaseError && error.walk((e) => e instanceof TransactionReceiptNotFoundError)) return undefined;
    throw error;
  }
}

/** The organization's uploaded contract ABIs by lowercase address (create_smart_contract_interface), for custom errors. */
async function abisOf(db: Queryable, organizationId: string): Promise<Map<string, Abi>> {
  const rows = await db.query<{ address: string; interface: string }>(
    "SELECT lower(address) AS address, interface FROM smart_contract_interfaces WHERE organization_id = $1 AND type = 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM' ORDER BY seq",
    [organizationId],
  );
  const abis = new Map<string, Abi>();
  for (const row of rows) {
    try {
      abis.set(row.address, JSON.parse(row.interface) as Abi);
    } catch {
      // an unreadable ABI decodes nothing
    }
  }
  return abis;
}

/**
 * Why a mined transaction reverted, outermost call first: from the node's call trace (debug_traceTransaction with
 * the callTracer, which anvil, geth, reth and erigon serve), else by replaying the call on the state before its
 * block, else a bare "execution reverted" at its recipient.
 */
async function revertChain(
  chain: EvmChain,
  db: Queryable,
  row: SendTransactionRow,
  receipt: TransactionReceipt,
): Promise<RevertChainEntry[]> {
  const abis = await abisOf(db, row.organization_id);
  try {
    const trace = await chain.client.request({
      method: "debug_traceTransaction" as never,
      params: [receipt.transactionHash, { tracer: "callTracer" }] as never,
    });
    const entries = revertChainOfTrace(trace as CallFrame, (address) => abis.get(address));
    if (entries.length > 0) return entries;
  } catch {
    // no tracing on this node: replay instead
  }
  const to = receipt.to ?? undefined;
  try {
    const sent = await chain.client.getTransaction({ hash: receipt.transactionHash });
    await chain.client.call({
      account: sent.from,
      to: sent.to ?? undefined,
      data: sent.input,
      value: sent.value,
      gas: sent.gas,
      blockNumber: receipt.blockNumber - 1n,
    });
  } catch (error) {
    const withData =
      error instanceof viem().BaseError
        ? (error.walk((e) => typeof (e as { data?: unknown }).data === "string") as { data?: string } | null)
        : null;
    if (withData?.data) return [revertEntry(withData.data, to, to ? abis.get(to.toLowerCase()) : undefined)];
  }
  return [revertEntry(undefined, to)];
}

/** Mined: INCLUDED, or FAILED with the decoded revert (the block, nonce and gas are spent either way). */
async function minedOutcome(chain: EvmChain, db: Queryable, row: SendTransactionRow, receipt: TransactionReceipt): Promise<StepOutcome> {
  const mined = await chain.client.getBlock({ blockNumber: receipt.blockNumber }).catch(() => undefined);
  const block = {
    blockNumber: receipt.blockNumber,
    blockHash: receipt.blockHash,
    fee: receipt.gasUsed * receipt.effectiveGasPrice,
    ...(mined ? { blockTimestamp: new Date(Number(mined.timestamp) * 1000) } : {}),
  };
  if (receipt.status === "success") return { kind: "included", ...block };
  const entries = await revertChain(chain, db, row, receipt);
  const innermost = entries[entries.length - 1]!;
  return {
    kind: "failed",
    mined: true,
    ...block,
    error: { message: `Execution reverted on chain: ${innermost.displayMessage}`, revertChain: entries, eth: { revertChain: entries } },
  };
}

/**
 * One look at an EVM send: mined already (its receipt), else (re)broadcast of the same signed bytes when it was
 * never accepted or has waited `rebroadcastMs` since; "already known" means the node has it, "nonce too low"
 * without a receipt of ours means another transaction took the nonce.
 */
export async function stepEvmSend(
  chain: EvmChain,
  db: Queryable,
  row: SendTransactionRow,
  rebroadcastMs: number,
  now: Date,
): Promise<StepOutcome> {
  const hash = row.tx_hash as Hex;
  try {
    const receipt = await receiptOf(chain, hash);
    if (receipt) return await minedOutcome(chain, db, row, receipt);
    const due = row.status === "INITIALIZED" || !row.broadcast_at || now.getTime() - row.broadcast_at.getTime() >= rebroadcastMs;
    if (!due) return { kind: "waiting" };
    try {
      await chain.client.sendRawTransaction({ serializedTransaction: row.signed_transaction as Hex });
      return { kind: "broadcast" };
    } catch (error) {
      if (isNetworkError(error)) throw error;
      const message = messageOf(error);
      if (ALREADY_KNOWN.test(message)) return { kind: "broadcast" };
      if (NONCE_TOO_LOW.test(message)) {
        // Ours may have been mined meanwhile; if not, the nonce went to another transaction.
        const late = await receiptOf(chain, hash);
        if (late) return await minedOutcome(chain, db, row, late);
        return {
          kind: "failed",
          mined: false,
          error: {
            message: `nonce ${row.nonce} of ${row.from_address} was used by another transaction on ${row.chain}; this one can never be mined (${message})`,
          },
        };
      }
      return { kind: "retry", error: message, refused: true };
    }
  } catch (error) {
    return { kind: "retry", error: `the node of ${row.chain} did not answer: ${messageOf(error)}`, refused: false };
  }
}
