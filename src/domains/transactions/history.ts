import { Type } from "@sinclair/typebox";
import { invalidArgument } from "../../errors.js";
import type { Queryable } from "../../store/database.js";

/** The API's Pagination: `limit` 1 to 100 (default 10), `before` / `after` cursors from an earlier page. */
export const PaginationOptions = Type.Optional(
  Type.Object({ limit: Type.Optional(Type.String()), before: Type.Optional(Type.String()), after: Type.Optional(Type.String()) }),
);

export const PageInfo = Type.Object({
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

/** One transaction of an address's history, before it is shaped for its chain. */
export interface HistoryRow {
  kind: "sent" | "seen";
  tx_hash: string;
  block_number: string;
  block_hash: string | null;
  block_timestamp: Date | null;
  /** Sent: the send's row id; seen: the balance event's. */
  id: string;
  signed_transaction: string | null;
  fee: string | null;
  status: string | null;
  from_address: string | null;
  fingerprint: string | null;
  created_at: Date;
  operation: string | null;
  amount: string | null;
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
 * One page of an address's history on a chain, most recent first: the transactions Strongroom sent from it
 * (once mined), and — on the EVM chain the block watcher reads — the native transfers to or from it the watcher saw.
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
       SELECT 'sent' AS kind, s.tx_hash, s.block_number::text AS block_number, s.block_hash, s.block_timestamp, s.id, s.signed_transaction, s.fee, s.status,
              s.from_address, a.fingerprint, s.created_at, NULL AS operation, NULL AS amount, NULL::boolean AS finalized
         FROM send_transactions s LEFT JOIN activities a ON a.id = s.activity_id
        WHERE s.organization_id = $1 AND s.chain = $2 AND lower(s.from_address) = lower($3) AND s.block_number IS NOT NULL
       UNION ALL
       SELECT 'seen', e.tx_hash, e.block_number::text, e.block_hash, e.block_timestamp, e.id, NULL, NULL, NULL, NULL, NULL, e.created_at, e.operation, e.amount, e.finalized
         FROM balance_events e
        WHERE e.organization_id = $1 AND e.chain = $2 AND lower(e.address) = lower($3)
          AND NOT EXISTS (SELECT 1 FROM send_transactions s WHERE s.organization_id = $1 AND s.tx_hash = e.tx_hash)
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

export const rfc3339 = (date: Date | null) => (date ?? new Date(0)).toISOString().replace(/\.\d{3}Z$/, "Z");
