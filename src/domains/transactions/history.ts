import { Type, type TSchema } from "@sinclair/typebox";
import { invalidArgument } from "../../errors.js";
import { Id } from "../../schema/common.js";
import type { Queryable } from "../../store/database.js";
import { displayAmount, type ChainAsset } from "./assets.js";

/** The API's Pagination: `limit` 1 to 100 (default 10), `before` / `after` cursors from an earlier page. */
const PaginationOptions = Type.Optional(
  Type.Object({ limit: Type.Optional(Type.String()), before: Type.Optional(Type.String()), after: Type.Optional(Type.String()) }),
);

const PageInfo = Type.Object({
  hasNextPage: Type.Boolean(),
  hasPreviousPage: Type.Boolean(),
  startCursor: Type.Optional(Type.String()),
  endCursor: Type.Optional(Type.String()),
});

export const HistoryBlock = Type.Object({ number: Type.String(), hash: Type.String(), timestamp: Type.String() });
export const HistoryFee = Type.Object({ amount: Type.String(), caip19: Type.String() });
export const HistoryTransfer = Type.Object({
  direction: Type.String(),
  asset: Type.Optional(Type.Object({ caip19: Type.String(), symbol: Type.String(), name: Type.String(), decimals: Type.Integer() })),
  amount: Type.String(),
  counterparty: Type.String(),
  display: Type.Optional(Type.Object({ crypto: Type.String() })),
});
export const HistoryTurnkey = Type.Object({
  sponsored: Type.Boolean(),
  activityFingerprint: Type.Optional(Type.String()),
  submittedAt: Type.Optional(Type.String()),
});

/** A balance change the block watcher saw in a transaction (balance_events). */
export interface SeenTransfer {
  operation: "deposit" | "withdraw";
  amount: string;
  /** "" for the native coin, else the token contract. */
  asset: string;
  counterparty: string | null;
}

/** One transaction of an address's history, before it is shaped for its chain. */
export interface HistoryRow {
  kind: "sent" | "seen";
  tx_hash: string;
  block_number: string;
  block_hash: string | null;
  block_timestamp: Date | null;
  signed_transaction: string | null;
  fee: string | null;
  status: string | null;
  /** Sent, or seen arriving from another of the organization's addresses that Strongroom sent it from: the sender. */
  from_address: string | null;
  fingerprint: string | null;
  created_at: Date;
  /** Seen: the changes to the address the watcher recorded in the transaction, in log order. */
  transfers: SeenTransfer[] | null;
  finalized: boolean | null;
}

const cursorOf = (row: HistoryRow) => Buffer.from(`${row.block_number}:${row.tx_hash}`).toString("base64url");

function readCursor(cursor: string, field: string): [string, string] {
  const [block, hash] = Buffer.from(cursor, "base64url").toString().split(":");
  if (!block || !hash || !/^[0-9]+$/.test(block))
    throw invalidArgument(`paginationOptions.${field}: not a cursor of this history`, [
      { field: `paginationOptions.${field}`, description: "unknown cursor" },
    ]);
  return [block, hash];
}

/**
 * One page of an address's history on a chain, most recent first: the transactions Strongroom sent from it (once
 * mined), and the transactions the block watcher saw move the address's native coin or a listed token (one item
 * per transaction), unless Strongroom sent them from the address (those it sent from another of the organization's
 * addresses carry that sender and the sending activity).
 */
export async function historyPage(
  db: Queryable,
  organizationId: string,
  chain: string,
  address: string,
  options: { limit?: string; before?: string; after?: string } = {},
): Promise<{ rows: HistoryRow[]; pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor?: string; endCursor?: string } }> {
  const limit = options.limit === undefined ? 10 : Number(options.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw invalidArgument("paginationOptions.limit: must be from 1 to 100", [
      { field: "paginationOptions.limit", description: "1 to 100" },
    ]);
  const backwards = options.before !== undefined;
  const cursor =
    options.before !== undefined
      ? readCursor(options.before, "before")
      : options.after !== undefined
        ? readCursor(options.after, "after")
        : undefined;
  const rows = await db.query<HistoryRow>(
    `SELECT * FROM (
       SELECT 'sent' AS kind, s.tx_hash, s.block_number::text AS block_number, s.block_hash, s.block_timestamp, s.signed_transaction, s.fee, s.status,
              s.from_address, a.fingerprint, s.created_at, NULL::json AS transfers, NULL::boolean AS finalized
         FROM send_transactions s LEFT JOIN activities a ON a.id = s.activity_id
        WHERE s.organization_id = $1 AND s.chain = $2 AND lower(s.from_address) = lower($3) AND s.block_number IS NOT NULL
       UNION ALL
       SELECT 'seen', e.tx_hash, e.block_number::text, min(e.block_hash), min(e.block_timestamp), NULL, NULL, NULL,
              min(s.from_address), min(a.fingerprint), coalesce(min(s.created_at), min(e.created_at)),
              json_agg(json_build_object('operation', e.operation, 'amount', e.amount, 'asset', e.asset, 'counterparty', e.counterparty)
                       ORDER BY e.log_index, e.operation),
              bool_and(e.finalized)
         FROM balance_events e
         LEFT JOIN send_transactions s ON s.organization_id = e.organization_id AND s.chain = e.chain AND s.tx_hash = e.tx_hash
         LEFT JOIN activities a ON a.id = s.activity_id
        WHERE e.organization_id = $1 AND e.chain = $2 AND e.address = lower($3) AND (s.id IS NULL OR lower(s.from_address) <> e.address)
        GROUP BY e.tx_hash, e.block_number
     ) h
     WHERE $4::text IS NULL OR ${backwards ? "(h.block_number::bigint, h.tx_hash) > ($4::bigint, $5::text)" : "(h.block_number::bigint, h.tx_hash) < ($4::bigint, $5::text)"}
     ORDER BY h.block_number::bigint ${backwards ? "ASC" : "DESC"}, h.tx_hash ${backwards ? "ASC" : "DESC"}
     LIMIT $6`,
    [organizationId, chain, address, cursor?.[0] ?? null, cursor?.[1] ?? null, limit + 1],
  );
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  if (backwards) page.reverse();
  return {
    rows: page,
    pageInfo: {
      hasNextPage: backwards ? cursor !== undefined : more,
      hasPreviousPage: backwards ? more : cursor !== undefined,
      ...(page.length > 0 ? { startCursor: cursorOf(page[0]!), endCursor: cursorOf(page[page.length - 1]!) } : {}),
    },
  };
}

const rfc3339 = (date: Date | null) => (date ?? new Date(0)).toISOString().replace(/\.\d{3}Z$/, "Z");

/** The item's block: its number, hash (empty when not read: a Solana slot's) and time. */
export const historyBlock = (row: HistoryRow) => ({
  number: row.block_number,
  hash: row.block_hash ?? "",
  timestamp: rfc3339(row.block_timestamp),
});

/** The `turnkey` part of an item Strongroom sent: never sponsored, the activity's fingerprint, when it was submitted. */
export const sentByStrongroom = (row: HistoryRow) => ({
  sponsored: false,
  ...(row.fingerprint ? { activityFingerprint: row.fingerprint } : {}),
  submittedAt: rfc3339(row.created_at),
});

/** One transfer as the history shows it: the asset named (when known) and its amount for display. */
export function historyTransfer(direction: "IN" | "OUT", amount: bigint, counterparty: string, asset: ChainAsset | undefined) {
  return {
    direction,
    ...(asset ? { asset: { caip19: asset.caip19, symbol: asset.symbol, name: asset.name, decimals: asset.decimals } } : {}),
    amount: amount.toString(),
    counterparty,
    ...(asset ? { display: { crypto: displayAmount(amount, asset.decimals) } } : {}),
  };
}

/**
 * The body and answer every history query shares: the organization, the address and chain, the API's Pagination
 * (`limit` 1 to 100, default 10; `before` / `after` cursors), and the page's items with its PageInfo.
 */
export function historyQuerySchemas<A extends TSchema, C extends TSchema, I extends TSchema>(address: A, caip2: C, item: I) {
  return {
    body: Type.Object({ organizationId: Id(), address, caip2, paginationOptions: PaginationOptions }),
    result: Type.Object({ transactions: Type.Array(item), pageInfo: PageInfo }),
  };
}
