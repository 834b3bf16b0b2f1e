import { createHash } from "node:crypto";
import { v7 as uuidv7 } from "uuid";
import type { EvmSettings } from "../../config.js";
import type { Services } from "../../services.js";
import type { Queryable } from "../../store/database.js";
import { enqueue } from "./outbox.js";

interface RpcBlock {
  number: string;
  hash: string;
  timestamp: string;
  transactions: { hash: string; from: string; to: string | null; value: string }[];
}

/** Blocks read per round, so a long outage is caught up in steps. */
const BLOCKS_PER_ROUND = 50;
/** One watcher per cluster: the round runs under this advisory lock. */
const WATCHER_LOCK = 7163454;

async function rpc<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error || body.result === undefined) throw new Error(`${method}: ${body.error?.message ?? "no result"}`);
  return body.result;
}

const hex = (n: number) => `0x${n.toString(16)}`;

async function finalizedBlock(settings: EvmSettings, latest: number): Promise<number> {
  if (settings.finalityDepth !== undefined) return latest - settings.finalityDepth;
  const block = await rpc<{ number: string } | null>(settings.rpcUrl!, "eth_getBlockByNumber", ["finalized", false]);
  return block ? Number(block.number) : -1;
}

interface Watched {
  organization_id: string;
  parent_id: string | null;
  address: string;
}

function payload(
  kind: "confirmed" | "finalized",
  event: {
    organization_id: string;
    parent_id: string | null;
    chain: string;
    address: string;
    tx_hash: string;
    operation: string;
    amount: string;
    block_number: string | number;
    block_hash: string;
    block_timestamp: Date;
  },
) {
  const key = createHash("sha256").update(`${event.chain}:${event.tx_hash}:${event.address}:${event.operation}`).digest("hex");
  return JSON.stringify({
    type: `balances:${kind}`,
    organizationId: event.organization_id,
    parentOrganizationId: event.parent_id ?? event.organization_id,
    msg: {
      operation: event.operation,
      caip2: event.chain,
      txHash: event.tx_hash,
      address: event.address,
      idempotencyKey: `${key}:balances:${kind}`,
      asset: { symbol: "ETH", name: "Ethereum", decimals: 18, caip19: `${event.chain}/slip44:60`, amount: event.amount },
      block: {
        number: Number(event.block_number),
        hash: event.block_hash,
        timestamp: event.block_timestamp.toISOString().replace(/\.\d{3}Z$/, "Z"),
      },
    },
  });
}

/**
 * One round: read the blocks after the cursor, record each native-currency transfer to or from an
 * Ethereum wallet account (a deposit or a withdrawal of that value) and queue BALANCE_CONFIRMED_UPDATES;
 * then queue BALANCE_FINALIZED_UPDATES for recorded changes whose block is final and still canonical.
 */
async function round(tx: Queryable, settings: EvmSettings, now: Date): Promise<number> {
  const url = settings.rpcUrl!;
  const chain = `eip155:${Number(await rpc<string>(url, "eth_chainId", []))}`;
  const latest = Number(await rpc<string>(url, "eth_blockNumber", []));
  const [cursor] = await tx.query<{ last_block: string }>("SELECT last_block FROM chain_cursors WHERE chain = $1", [chain]);
  if (!cursor) {
    // Watch from now on: history before Strongroom started watching is not replayed as events.
    await tx.query("INSERT INTO chain_cursors (chain, last_block) VALUES ($1, $2)", [chain, latest]);
    return 0;
  }
  const watched = await tx.query<Watched>(
    `SELECT a.organization_id, o.parent_id, lower(a.address) AS address FROM wallet_accounts a JOIN organizations o ON o.id = a.organization_id
      WHERE a.address_format = 'ADDRESS_FORMAT_ETHEREUM'`,
  );
  const byAddress = new Map<string, Watched[]>();
  for (const w of watched) byAddress.set(w.address, [...(byAddress.get(w.address) ?? []), w]);
  let queued = 0;
  const last = Math.min(latest, Number(cursor.last_block) + BLOCKS_PER_ROUND);
  for (let n = Number(cursor.last_block) + 1; n <= last; n++) {
    const block = await rpc<RpcBlock>(url, "eth_getBlockByNumber", [hex(n), true]);
    const timestamp = new Date(Number(block.timestamp) * 1000);
    for (const transaction of block.transactions) {
      const value = BigInt(transaction.value);
      if (value === 0n) continue;
      const changes = [
        ...(byAddress.get(transaction.to?.toLowerCase() ?? "") ?? []).map((w) => ({ ...w, operation: "deposit" })),
        ...(byAddress.get(transaction.from.toLowerCase()) ?? []).map((w) => ({ ...w, operation: "withdraw" })),
      ];
      for (const change of changes) {
        const event = {
          ...change,
          chain,
          tx_hash: transaction.hash,
          amount: value.toString(),
          block_number: n,
          block_hash: block.hash,
          block_timestamp: timestamp,
        };
        const inserted = await tx.query(
          `INSERT INTO balance_events (id, organization_id, chain, address, tx_hash, operation, amount, block_number, block_hash, block_timestamp, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT DO NOTHING RETURNING id`,
          [
            uuidv7(),
            change.organization_id,
            chain,
            change.address,
            transaction.hash,
            change.operation,
            event.amount,
            n,
            block.hash,
            timestamp,
            now,
          ],
        );
        if (inserted.length === 0) continue;
        queued += await enqueue(
          tx,
          change.organization_id,
          "BALANCE_CONFIRMED_UPDATES",
          { address: change.address, network: chain },
          async () => payload("confirmed", event),
          now,
        );
      }
    }
  }
  await tx.query("UPDATE chain_cursors SET last_block = $2 WHERE chain = $1", [chain, last]);

  const final = await finalizedBlock(settings, latest);
  const pending = await tx.query<{
    id: string;
    organization_id: string;
    parent_id: string | null;
    chain: string;
    address: string;
    tx_hash: string;
    operation: string;
    amount: string;
    block_number: string;
    block_hash: string;
    block_timestamp: Date;
  }>(
    `SELECT e.*, o.parent_id FROM balance_events e JOIN organizations o ON o.id = e.organization_id
      WHERE e.chain = $1 AND NOT e.finalized AND e.block_number <= $2 ORDER BY e.block_number, e.id`,
    [chain, final],
  );
  for (const event of pending) {
    const canonical = await rpc<{ hash: string } | null>(url, "eth_getBlockByNumber", [hex(Number(event.block_number)), false]);
    if (canonical?.hash !== event.block_hash) {
      // Reorganized away before it became final: never confirmed after all.
      await tx.query("DELETE FROM balance_events WHERE id = $1", [event.id]);
      continue;
    }
    await tx.query("UPDATE balance_events SET finalized = true WHERE id = $1", [event.id]);
    queued += await enqueue(
      tx,
      event.organization_id,
      "BALANCE_FINALIZED_UPDATES",
      { address: event.address, network: chain },
      async () => payload("finalized", event),
      now,
    );
  }
  return queued;
}

export interface BalanceWatcher {
  stop(): Promise<void>;
}

/** Watches EVM_RPC_URL's chain; in a cluster, the process holding the advisory lock does each round. */
export function startBalanceWatcher(services: Services, settings: EvmSettings, onError: (error: unknown) => void): BalanceWatcher {
  let running = true;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    while (running) {
      try {
        const queued = await services.db.transaction(async (tx) => {
          const [lock] = await tx.query<{ locked: boolean }>("SELECT pg_try_advisory_xact_lock($1) AS locked", [WATCHER_LOCK]);
          return lock?.locked ? round(tx, settings, services.clock()) : 0;
        });
        if (queued > 0) services.webhooks.wake();
      } catch (error) {
        if (running) onError(error);
      }
      await new Promise<void>((resolve) => {
        timer = setTimeout(resolve, settings.pollIntervalMs);
        wake = resolve;
      });
    }
  })();
  return {
    async stop() {
      running = false;
      clearTimeout(timer);
      wake?.();
      await loop;
    },
  };
}
