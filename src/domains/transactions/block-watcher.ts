import { createHash } from "node:crypto";
import { v7 as uuidv7 } from "uuid";
import type { Hex } from "viem";
import { startBackgroundLoop } from "../../background-loop.js";
import type { EvmChain } from "../../chains/chains.js";
import type { EvmSettings } from "../../config.js";
import type { Services } from "../../services.js";
import { enqueue } from "../webhooks/outbox.js";
import { assetsOf, type ChainAsset } from "./assets.js";

/** Blocks read per round, so a long outage is caught up in steps. */
const BLOCKS_PER_ROUND = 50;
/** Blocks asked for at once. */
const PARALLEL_READS = 10;
/** keccak256("Transfer(address,address,uint256)"): an ERC-20 transfer (an ERC-721 one has its token id as a fourth topic). */
const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

/** One balance change of one of an organization's addresses, as balance_events holds it. */
interface Change {
  organizationId: string;
  parentId: string | null;
  address: string;
  operation: "deposit" | "withdraw";
  txHash: string;
  /** "" for the chain's native coin, else the token contract (lowercase). */
  asset: string;
  /** The Transfer log's index in its block; -1 for a native transfer. */
  logIndex: number;
  amount: string;
  counterparty: string | null;
  block: { number: bigint; hash: string; timestamp: Date };
}

/** A stored change, read back to report it final. */
interface EventRow {
  organization_id: string;
  parent_id: string | null;
  chain: string;
  address: string;
  tx_hash: string;
  operation: string;
  asset: string;
  log_index: number;
  amount: string;
  block_number: string;
  block_hash: string;
  block_timestamp: Date;
}

interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  transactionHash: string;
  logIndex: string;
}

const rfc3339 = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, "Z");

/** The documented balances:confirmed / balances:finalized body; one change, one address, one asset. */
function payload(kind: "confirmed" | "finalized", chain: string, change: Change, asset: ChainAsset): string {
  // A native change keeps the key it had before tokens were watched; a token's names its asset and log too.
  const identity = `${chain}:${change.txHash}:${change.address}:${change.operation}${change.asset ? `:${change.asset}:${change.logIndex}` : ""}`;
  const key = createHash("sha256").update(identity).digest("hex");
  return JSON.stringify({
    type: `balances:${kind}`,
    organizationId: change.organizationId,
    parentOrganizationId: change.parentId ?? change.organizationId,
    msg: {
      operation: change.operation,
      caip2: chain,
      txHash: change.txHash,
      address: change.address,
      idempotencyKey: `${key}:balances:${kind}`,
      asset: { symbol: asset.symbol, name: asset.name, decimals: asset.decimals, caip19: asset.caip19, amount: change.amount },
      block: { number: Number(change.block.number), hash: change.block.hash, timestamp: rfc3339(change.block.timestamp) },
    },
  });
}

const changeOf = (row: EventRow): Change => ({
  organizationId: row.organization_id,
  parentId: row.parent_id,
  address: row.address,
  operation: row.operation as Change["operation"],
  txHash: row.tx_hash,
  asset: row.asset,
  logIndex: row.log_index,
  amount: row.amount,
  counterparty: null,
  block: { number: BigInt(row.block_number), hash: row.block_hash, timestamp: row.block_timestamp },
});

/** The last 20 bytes of a 32-byte topic: an indexed address. */
const topicAddress = (topic: string) => `0x${topic.slice(-40)}`.toLowerCase();

/**
 * What blocks `from`..`to` changed for the watched addresses: native value moved by a transaction to or from one,
 * and Transfer logs of the listed tokens naming one. Read from the node, outside any transaction.
 */
async function readChanges(
  chain: EvmChain,
  tokens: string[],
  watched: Map<string, Array<{ organization_id: string; parent_id: string | null }>>,
  from: bigint,
  to: bigint,
): Promise<{ changes: Change[]; hashes: Map<bigint, string> }> {
  const blocks = [];
  for (let start = from; start <= to; start += BigInt(PARALLEL_READS)) {
    const numbers = [];
    for (let n = start; n <= to && n < start + BigInt(PARALLEL_READS); n++) numbers.push(n);
    blocks.push(...(await Promise.all(numbers.map((blockNumber) => chain.client.getBlock({ blockNumber, includeTransactions: true })))));
  }
  const byNumber = new Map(
    blocks.map((b) => [b.number, { number: b.number, hash: b.hash, timestamp: new Date(Number(b.timestamp) * 1000) }]),
  );
  const changes: Change[] = [];
  const record = (address: string, change: Omit<Change, "organizationId" | "parentId" | "address">) => {
    for (const w of watched.get(address) ?? [])
      changes.push({ organizationId: w.organization_id, parentId: w.parent_id, address, ...change });
  };
  for (const block of blocks) {
    for (const transaction of block.transactions) {
      if (transaction.value === 0n) continue;
      const sender = transaction.from.toLowerCase();
      const recipient = transaction.to?.toLowerCase();
      const common = {
        txHash: transaction.hash,
        asset: "",
        logIndex: -1,
        amount: transaction.value.toString(),
        block: byNumber.get(block.number)!,
      };
      if (recipient) record(recipient, { ...common, operation: "deposit", counterparty: sender });
      record(sender, { ...common, operation: "withdraw", counterparty: recipient ?? null });
    }
  }
  if (tokens.length > 0) {
    const logs = (await chain.client.request({
      method: "eth_getLogs",
      params: [
        { address: tokens as Hex[], fromBlock: `0x${from.toString(16)}`, toBlock: `0x${to.toString(16)}`, topics: [TRANSFER_TOPIC] },
      ],
    })) as unknown as RpcLog[];
    for (const log of logs) {
      if (log.topics.length !== 3 || log.data.length < 3) continue;
      const amount = BigInt(log.data);
      const block = byNumber.get(BigInt(log.blockNumber));
      if (amount === 0n || !block) continue;
      const [sender, recipient] = [topicAddress(log.topics[1]!), topicAddress(log.topics[2]!)];
      const common = {
        txHash: log.transactionHash,
        asset: log.address.toLowerCase(),
        logIndex: Number(log.logIndex),
        amount: amount.toString(),
        block,
      };
      record(recipient, { ...common, operation: "deposit", counterparty: sender });
      record(sender, { ...common, operation: "withdraw", counterparty: recipient });
    }
  }
  return { changes, hashes: new Map([...byNumber].map(([n, b]) => [n, b.hash])) };
}

/** The newest final block: EVM_FINALITY_DEPTH blocks behind the latest, else the node's `finalized` block (-1: none). */
async function finalBlock(chain: EvmChain, settings: EvmSettings, latest: bigint): Promise<bigint> {
  if (settings.finalityDepth !== undefined) return latest - BigInt(settings.finalityDepth);
  const block = await chain.client.getBlock({ blockTag: "finalized" }).catch(() => undefined);
  return block?.number ?? -1n;
}

/**
 * One round on one chain, under the chain's lease (taken only when there is something to do): read the blocks after
 * the cursor and the canonical hashes of the blocks holding changes that became final (all outside any
 * transaction); then, in one transaction, move the cursor on from where this round started (if another process
 * moved it meanwhile, write nothing), record the changes with their BALANCE_CONFIRMED_UPDATES, and report final the
 * changes whose block is still canonical (BALANCE_FINALIZED_UPDATES), removing those a reorganization dropped.
 * Returns the webhooks queued.
 */
async function watchChain(services: Services, settings: EvmSettings, caip2: string): Promise<number> {
  const { db } = services;
  const chain = await services.chains.evm(caip2);
  const [cursor] = await db.query<{ last_block: string; held: boolean }>(
    "SELECT last_block, coalesce(claimed_until >= now(), false) AS held FROM chain_cursors WHERE chain = $1",
    [caip2],
  );
  const latest = await chain.client.getBlockNumber();
  if (!cursor) {
    // Watch from now on: history before Strongroom started watching is not replayed as events.
    await db.query("INSERT INTO chain_cursors (chain, last_block) VALUES ($1, $2) ON CONFLICT DO NOTHING", [caip2, latest.toString()]);
    return 0;
  }
  if (cursor.held) return 0; // another process is reading this chain
  const final = await finalBlock(chain, settings, latest);
  // Nothing new and nothing become final: no lease taken, nothing written.
  if (latest <= BigInt(cursor.last_block)) {
    const [pending] = await db.query("SELECT 1 FROM balance_events WHERE chain = $1 AND NOT finalized AND block_number <= $2 LIMIT 1", [
      caip2,
      final.toString(),
    ]);
    if (!pending) return 0;
  }
  const leaseMs = services.chains.settings.timeoutMs * 12;
  const [lease] = await db.query<{ claimed_until: Date }>(
    `UPDATE chain_cursors SET claimed_until = date_trunc('milliseconds', now() + ($3 || ' milliseconds')::interval)
      WHERE chain = $1 AND last_block = $2 AND (claimed_until IS NULL OR claimed_until < now()) RETURNING claimed_until`,
    [caip2, cursor.last_block, String(leaseMs)],
  );
  if (!lease) return 0; // another process took it meanwhile
  try {
    return await readAndRecord(services, chain, BigInt(cursor.last_block), latest, final);
  } catch (error) {
    await db.query("UPDATE chain_cursors SET claimed_until = NULL WHERE chain = $1 AND claimed_until = $2", [caip2, lease.claimed_until]);
    throw error;
  }
}

async function readAndRecord(services: Services, chain: EvmChain, cursor: bigint, latest: bigint, final: bigint): Promise<number> {
  const { db } = services;
  const assets = assetsOf(services.chains.settings.assets, chain.caip2);
  const tokens = assets.flatMap((a) => (a.address ? [a.address.toLowerCase()] : []));
  // Never backwards (a node behind the others, or reset): the cursor then stays where it is.
  const last = cursor + BigInt(BLOCKS_PER_ROUND);
  const to = latest <= cursor ? cursor : latest < last ? latest : last;
  const watched = new Map<string, Array<{ organization_id: string; parent_id: string | null }>>();
  for (const w of await db.query<{ organization_id: string; parent_id: string | null; address: string }>(
    `SELECT a.organization_id, o.parent_id, lower(a.address) AS address FROM wallet_accounts a JOIN organizations o ON o.id = a.organization_id
      WHERE a.address_format = 'ADDRESS_FORMAT_ETHEREUM'`,
  ))
    watched.set(w.address, [...(watched.get(w.address) ?? []), w]);
  const { changes, hashes } = to > cursor ? await readChanges(chain, tokens, watched, cursor + 1n, to) : { changes: [], hashes: new Map() };

  const unfinalized = await db.query<{ block_number: string }>(
    "SELECT DISTINCT block_number FROM balance_events WHERE chain = $1 AND NOT finalized AND block_number <= $2",
    [chain.caip2, final.toString()],
  );
  const canonical = new Map<bigint, string>();
  for (const { block_number } of unfinalized) {
    const n = BigInt(block_number);
    canonical.set(n, hashes.get(n) ?? (await chain.client.getBlock({ blockNumber: n })).hash);
  }

  const assetOf = (address: string) => (address ? assets.find((a) => a.address?.toLowerCase() === address) : assets[0]);
  const now = services.clock();
  return db.transaction(async (tx) => {
    const moved = await tx.query(
      "UPDATE chain_cursors SET last_block = $3, claimed_until = NULL WHERE chain = $1 AND last_block = $2 RETURNING chain",
      [chain.caip2, cursor.toString(), to.toString()],
    );
    if (moved.length === 0) return 0; // another process read these blocks after this round's lease ran out
    let queued = 0;
    const report = async (kind: "confirmed" | "finalized", change: Change) => {
      const asset = assetOf(change.asset);
      if (!asset) return; // a token no longer in CHAIN_ASSETS: nothing to name it by
      queued += await enqueue(
        tx,
        change.organizationId,
        kind === "confirmed" ? "BALANCE_CONFIRMED_UPDATES" : "BALANCE_FINALIZED_UPDATES",
        { address: change.address, network: chain.caip2 },
        async () => payload(kind, chain.caip2, change, asset),
        now,
      );
    };
    for (const change of changes) {
      const inserted = await tx.query(
        `INSERT INTO balance_events (id, organization_id, chain, address, tx_hash, operation, asset, log_index, amount, counterparty,
           block_number, block_hash, block_timestamp, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) ON CONFLICT DO NOTHING RETURNING id`,
        [
          uuidv7(),
          change.organizationId,
          chain.caip2,
          change.address,
          change.txHash,
          change.operation,
          change.asset,
          change.logIndex,
          change.amount,
          change.counterparty,
          change.block.number.toString(),
          change.block.hash,
          change.block.timestamp,
          now,
        ],
      );
      if (inserted.length > 0) await report("confirmed", change);
    }
    for (const [n, hash] of canonical) {
      // Reorganized away before it became final: never confirmed after all.
      await tx.query("DELETE FROM balance_events WHERE chain = $1 AND block_number = $2 AND block_hash <> $3 AND NOT finalized", [
        chain.caip2,
        n.toString(),
        hash,
      ]);
      const finalized = await tx.query<EventRow>(
        `UPDATE balance_events e SET finalized = true FROM organizations o
          WHERE o.id = e.organization_id AND e.chain = $1 AND e.block_number = $2 AND e.block_hash = $3 AND NOT e.finalized
          RETURNING e.*, o.parent_id`,
        [chain.caip2, n.toString(), hash],
      );
      for (const row of finalized.sort((a, b) => a.tx_hash.localeCompare(b.tx_hash) || a.log_index - b.log_index))
        await report("finalized", changeOf(row));
    }
    return queued;
  });
}

export interface BlockWatcher {
  stop(): Promise<void>;
}

/**
 * Watches every configured EVM chain (CHAIN_RPC_URLS and EVM_RPC_URL) for balance changes of the organizations'
 * Ethereum wallet accounts, every EVM_POLL_MS; the chains are read side by side, a node that does not answer
 * holding up only its own chain. Every process may run it: leases divide the chains between them.
 */
export function startBlockWatcher(services: Services, settings: EvmSettings, onError: (error: unknown) => void): BlockWatcher {
  const loop = startBackgroundLoop(
    async () => {
      const ids = await services.chains.evmIds();
      const queued = await Promise.all(
        ids.map((id) =>
          watchChain(services, settings, id).catch((error: unknown) => {
            onError(error);
            return 0;
          }),
        ),
      );
      if (queued.some((n) => n > 0)) services.webhooks.wake();
      return false;
    },
    { pollIntervalMs: settings.pollIntervalMs },
    onError,
  );
  return { stop: loop.stop };
}
