import { proveConsistency, proveInclusion, type Hash } from "../crypto/merkle.js";
import { parseCheckpointText } from "../crypto/signed-note.js";
import { formatTlogProof } from "../crypto/tlog-proof.js";
import type { Queryable } from "../store/database.js";
import { readNodes } from "./integrate.js";

export interface StoredEntry {
  index: number;
  /** The entry's exact bytes (its leaf is SHA-256(0x00 ‖ these bytes as UTF-8)). */
  entry: string;
}

export interface StoredCheckpoint {
  size: number;
  note: string;
  signedAt: Date;
}

const toCheckpoint = (row: { size: string; note: string; signed_at: Date }): StoredCheckpoint => ({
  size: Number(row.size),
  note: row.note,
  signedAt: row.signed_at,
});

/** The latest signed checkpoint, or the one of exactly `size` leaves; undefined when there is none. */
export async function findCheckpoint(db: Queryable, size?: number): Promise<StoredCheckpoint | undefined> {
  const rows = await db.query<{ size: string; note: string; signed_at: Date }>(
    size === undefined
      ? "SELECT size, note, signed_at FROM audit_checkpoints ORDER BY size DESC LIMIT 1"
      : "SELECT size, note, signed_at FROM audit_checkpoints WHERE size = $1",
    size === undefined ? [] : [String(size)],
  );
  return rows[0] && toCheckpoint(rows[0]);
}

/** Every checkpoint, smallest tree first. */
export async function allCheckpoints(db: Queryable): Promise<StoredCheckpoint[]> {
  const rows = await db.query<{ size: string; note: string; signed_at: Date }>(
    "SELECT size, note, signed_at FROM audit_checkpoints ORDER BY size",
  );
  return rows.map(toCheckpoint);
}

/**
 * Entries from index `start` on, at most `limit`: an organization's own (`organizationId`), or, for the operator's
 * export, every entry (`null` reads all, the server's own included).
 */
export async function readEntries(db: Queryable, organizationId: string | null, start: number, limit: number): Promise<StoredEntry[]> {
  const rows = await db.query<{ idx: string; entry: string }>(
    organizationId === null
      ? "SELECT idx, entry FROM audit_entries WHERE idx >= $1 ORDER BY idx LIMIT $2"
      : "SELECT idx, entry FROM audit_entries WHERE organization_id = $3 AND idx >= $1 ORDER BY idx LIMIT $2",
    organizationId === null ? [String(start), limit] : [String(start), limit, organizationId],
  );
  return rows.map((r) => ({ index: Number(r.idx), entry: r.entry }));
}

/** The organization an entry belongs to (null: the server's), or undefined when there is no such entry. */
export async function entryOwner(db: Queryable, index: number): Promise<{ organizationId: string | null; entry: string } | undefined> {
  const [row] = await db.query<{ organization_id: string | null; entry: string }>(
    "SELECT organization_id, entry FROM audit_entries WHERE idx = $1",
    [String(index)],
  );
  return row && { organizationId: row.organization_id, entry: row.entry };
}

const reader = (db: Queryable) => (nodes: Parameters<typeof readNodes>[1]) => readNodes(db, nodes);

/** A C2SP tlog-proof of entry `index` in the tree of `checkpoint`. */
export async function inclusionProof(db: Queryable, index: number, checkpoint: StoredCheckpoint): Promise<string> {
  return formatTlogProof(index, await proveInclusion(index, checkpoint.size, reader(db)), checkpoint.note);
}

/** The RFC 6962 consistency proof from the tree of `first` leaves to the tree of `second`. */
export function consistencyProof(db: Queryable, first: number, second: number): Promise<Hash[]> {
  return proveConsistency(first, second, reader(db));
}

/** A checkpoint's root hash, from its note text (the note was signed by this server when stored). */
export const checkpointRoot = (checkpoint: StoredCheckpoint): Hash =>
  parseCheckpointText(checkpoint.note.slice(0, checkpoint.note.lastIndexOf("\n\n") + 1)).root;
