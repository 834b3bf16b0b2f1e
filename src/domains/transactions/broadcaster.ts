import { startBackgroundLoop } from "../../background-loop.js";
import type { SendStatus, SendTransactionRow } from "../../records/send-transaction.js";
import type { Services } from "../../services.js";
import { backoffMs } from "../webhooks/worker.js";
import { stepEvmSend, type StepOutcome } from "./evm-broadcast.js";
import { releaseNonce } from "./nonces.js";
import { stepSolanaSend } from "./solana-broadcast.js";
import { recordStatusChange } from "./status-events.js";

/** Sends looked at per claim. */
const BATCH = 32;
/** A node that keeps refusing a transaction it was never given before (funds, fees, gas): given up after this many tries. */
const MAX_REFUSALS = 8;
/** Longest wait between two looks at a send whose node does not answer. */
const MAX_RETRY_MS = 30_000;

/**
 * Claims due sends, like the webhook outbox: rows locked FOR UPDATE SKIP LOCKED (processes divide them, never
 * wait) and leased, so a process that dies mid-look leaves them to another once the lease runs out.
 */
async function claim(services: Services): Promise<SendTransactionRow[]> {
  const leaseMs = services.chains.settings.timeoutMs * 4 + 5_000;
  return services.db.query<SendTransactionRow>(
    `UPDATE send_transactions SET claimed_until = now() + ($2 || ' milliseconds')::interval
      WHERE id IN (
        SELECT id FROM send_transactions
         WHERE status IN ('INITIALIZED', 'BROADCASTING') AND next_attempt_at <= now() AND (claimed_until IS NULL OR claimed_until < now())
         ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED)
      RETURNING *`,
    [BATCH, String(leaseMs)],
  );
}

async function step(services: Services, row: SendTransactionRow, now: Date): Promise<StepOutcome> {
  try {
    if (row.family === "solana")
      return await stepSolanaSend(services.chains.solana(row.chain), row, services.chains.settings.rebroadcastMs, now);
    return await stepEvmSend(await services.chains.evm(row.chain), services.db, row, services.chains.settings.rebroadcastMs, now);
  } catch (error) {
    // The chain is no longer configured, or its node could not even be identified: keep the send, say why.
    return { kind: "retry", error: (error as Error).message, refused: false };
  }
}

/**
 * Records one look's outcome in one transaction, with the webhooks and audit entries it causes. The status moves only from the one
 * this look started from, so a look that outlived its lease never reports twice what another process reported.
 * Returns whether webhooks were queued.
 */
async function record(services: Services, row: SendTransactionRow, outcome: StepOutcome, now: Date): Promise<boolean> {
  const poll = services.chains.settings.pollIntervalMs;
  return services.db.transaction(async (tx) => {
    const move = async (status: SendStatus, sets: string, values: unknown[]): Promise<boolean> => {
      const moved = await tx.query(
        `UPDATE send_transactions SET status = $3, ${sets}, claimed_until = NULL, updated_at = $4 WHERE id = $1 AND status = $2 RETURNING id`,
        [row.id, row.status, status, now, ...values],
      );
      return moved.length > 0;
    };
    let queued = 0;
    switch (outcome.kind) {
      case "broadcast":
        if (
          await move("BROADCASTING", "broadcast_at = $4, last_error = NULL, next_attempt_at = now() + ($5 || ' milliseconds')::interval", [
            String(poll),
          ])
        ) {
          if (row.status === "INITIALIZED") queued += await recordStatusChange(tx, services.audit, row, "BROADCASTING", {}, now);
        }
        break;
      case "waiting":
        await tx.query(
          "UPDATE send_transactions SET claimed_until = NULL, next_attempt_at = now() + ($2 || ' milliseconds')::interval WHERE id = $1",
          [row.id, String(poll)],
        );
        break;
      case "retry": {
        const attempts = row.attempts + 1;
        if (outcome.refused && row.status === "INITIALIZED" && attempts >= MAX_REFUSALS) {
          const error = { message: `the node refused the transaction ${attempts} times: ${outcome.error}` };
          if (await move("FAILED", "attempts = $5, last_error = $6, error = $7", [attempts, outcome.error, JSON.stringify(error)])) {
            if (row.nonce !== null) await releaseNonce(tx, row.chain, row.from_address, BigInt(row.nonce));
            queued += await recordStatusChange(tx, services.audit, row, "FAILED", { error }, now);
          }
          break;
        }
        const delay = Math.min(MAX_RETRY_MS, backoffMs(poll, attempts));
        await tx.query(
          "UPDATE send_transactions SET attempts = $2, last_error = $3, claimed_until = NULL, next_attempt_at = now() + ($4 || ' milliseconds')::interval WHERE id = $1",
          [row.id, attempts, outcome.error, String(delay)],
        );
        break;
      }
      case "included":
        if (
          await move("INCLUDED", "block_number = $5, block_hash = $6, block_timestamp = $7, fee = $8, last_error = NULL", [
            outcome.blockNumber.toString(),
            outcome.blockHash || null,
            outcome.blockTimestamp ?? null,
            outcome.fee?.toString() ?? null,
          ])
        ) {
          // Mined before this process ever recorded a broadcast (it died in between): BROADCASTING still goes first.
          if (row.status === "INITIALIZED") queued += await recordStatusChange(tx, services.audit, row, "BROADCASTING", {}, now);
          queued += await recordStatusChange(tx, services.audit, row, "INCLUDED", { txHash: row.tx_hash }, now);
        }
        break;
      case "failed":
        if (
          await move("FAILED", "block_number = $5, block_hash = $6, error = $7, block_timestamp = $8, fee = $9", [
            outcome.blockNumber?.toString() ?? null,
            outcome.blockHash ?? null,
            JSON.stringify(outcome.error),
            outcome.blockTimestamp ?? null,
            outcome.fee?.toString() ?? null,
          ])
        ) {
          if (outcome.mined && row.status === "INITIALIZED")
            queued += await recordStatusChange(tx, services.audit, row, "BROADCASTING", {}, now);
          queued += await recordStatusChange(
            tx,
            services.audit,
            row,
            "FAILED",
            { ...(outcome.mined ? { txHash: row.tx_hash } : {}), error: outcome.error },
            now,
          );
        }
        break;
    }
    return queued > 0;
  });
}

export interface Broadcaster {
  wake(): void;
  stop(): Promise<void>;
}

/**
 * Sends and tracks queued transactions: claims due sends, looks at each (receipt, else broadcast of the same
 * signed bytes), records the outcome; sleeps until woken or the next poll. Every process may run it.
 */
export function startBroadcaster(services: Services, onError: (error: unknown) => void): Broadcaster {
  return startBackgroundLoop(
    async () => {
      const claimed = await claim(services);
      const now = services.clock();
      const webhooks = await Promise.all(claimed.map(async (row) => record(services, row, await step(services, row, now), now)));
      if (webhooks.some(Boolean)) services.webhooks.wake();
      if (webhooks.length > 0) services.audit.wake();
      return claimed.length > 0;
    },
    { pollIntervalMs: services.chains.settings.pollIntervalMs },
    onError,
  );
}
