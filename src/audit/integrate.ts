import type { AuditKeys } from "../crypto/audit-keys.js";
import { leafHash, MerkleFrontier, type Hash, type NodeId } from "../crypto/merkle.js";
import { checkpointText } from "../crypto/signed-note.js";
import type { Database, Queryable } from "../store/database.js";
import { canonicalJson, type JsonValue } from "./canonical-json.js";

export interface IntegrationSettings {
  /** Events integrated per pass at most. */
  batch: number;
  /** A new checkpoint is signed once the tree grew and the latest is at least this old (0: every pass that grew it). */
  checkpointIntervalMs: number;
  /** How long the lease of the integrator lasts without being renewed. */
  leaseMs: number;
}

export interface IntegrationPass {
  /** False when another live process holds the lease: this one integrated nothing. */
  holder: boolean;
  integrated: number;
  size: number;
  /** The size of the checkpoint this pass signed, if it signed one. */
  checkpoint?: number;
  /** Events remain after this pass's batch. */
  more: boolean;
  /** The log grew past its latest checkpoint, which a later pass signs once it falls due. */
  checkpointOwed: boolean;
}

interface StateRow {
  size: string;
  mine: boolean;
  free: boolean;
  checkpoint_size: string | null;
  checkpoint_age_ms: string | null;
}

const hex = (hash: Hash) => Buffer.from(hash).toString("hex");

/** The stored subtrees `nodes` (all must exist), in the order asked. */
export async function readNodes(db: Queryable, nodes: NodeId[]): Promise<Hash[]> {
  if (nodes.length === 0) return [];
  const rows = await db.query<{ level: number; idx: string; hash: string }>(
    `SELECT h.level, h.idx, encode(h.hash, 'hex') AS hash
       FROM audit_hashes h JOIN unnest($1::smallint[], $2::bigint[]) AS n(level, idx) ON h.level = n.level AND h.idx = n.idx`,
    [nodes.map((n) => n.level), nodes.map((n) => String(n.index))],
  );
  const found = new Map(rows.map((r) => [`${r.level}/${r.idx}`, r.hash]));
  return nodes.map((n) => {
    const hash = found.get(`${n.level}/${n.index}`);
    if (hash === undefined) throw new Error(`the audit log's subtree (${n.level}, ${n.index}) is missing`);
    return new Uint8Array(Buffer.from(hash, "hex"));
  });
}

/**
 * The state row as a pass reads it (a StateRow, and `extra` columns): whether this process holds the lease, whether
 * the lease is free to take, and the latest checkpoint.
 */
const readState = (extra = "") =>
  `SELECT s.size,
          s.integrator IS NOT DISTINCT FROM current_setting('application_name') AS mine,
          (s.integrator IS NULL OR s.lease_until < now()
            OR NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.application_name = s.integrator)) AS free,
          c.size AS checkpoint_size,
          floor(extract(epoch FROM (now() - c.signed_at)) * 1000)::bigint AS checkpoint_age_ms${extra}
     FROM audit_log_state s
     LEFT JOIN LATERAL (SELECT size, signed_at FROM audit_checkpoints ORDER BY size DESC LIMIT 1) c ON true
    WHERE s.id`;

/** Whether a log of `size` entries grew past its latest checkpoint. */
const grewPastCheckpoint = (state: StateRow, size: number) => size > (state.checkpoint_size === null ? -1 : Number(state.checkpoint_size));

/** Whether a log of `size` entries is owed a checkpoint now: it grew past the latest, which is old enough. */
function checkpointDue(state: StateRow, size: number, settings: IntegrationSettings): boolean {
  const due = state.checkpoint_age_ms === null || Number(state.checkpoint_age_ms) >= settings.checkpointIntervalMs;
  return grewPastCheckpoint(state, size) && due;
}

/**
 * The lease and the head, locked: the integrator of the cluster is the process whose session name holds an
 * unexpired lease; a lease whose holder has no session left (the process died) is free at once.
 *
 * The lock is taken by a statement of its own and everything is read by the next: a statement that waited for the
 * lock sees the locked row as the pass before it left it, but the rest of the database (the latest checkpoint) as
 * it was when the statement began, before that pass committed.
 */
async function lockState(tx: Queryable): Promise<StateRow> {
  await tx.query("SELECT 1 FROM audit_log_state WHERE id FOR UPDATE");
  const [state] = await tx.query<StateRow>(readState());
  if (!state) throw new Error("the audit log's state row is missing (migration 35)");
  return state;
}

/**
 * A pass that would find nothing to integrate, no checkpoint due and either its own lease with more than half of it
 * left or the lease of another live process, found by one read without a lock: an idle store then writes nothing (a
 * locked pass is a row lock, a lease renewal and a commit, twice a second in every process). When this answers
 * undefined there may be work, and the locked pass decides.
 */
async function idlePass(db: Database, settings: IntegrationSettings): Promise<IntegrationPass | undefined> {
  const [state] = await db.query<StateRow & { lease_left_ms: string | null; pending: boolean }>(
    readState(
      `, floor(extract(epoch FROM (s.lease_until - now())) * 1000)::bigint AS lease_left_ms,
         EXISTS (SELECT 1 FROM audit_pending) AS pending`,
    ),
  );
  if (!state || state.pending) return undefined;
  const size = Number(state.size);
  if (checkpointDue(state, size, settings)) return undefined;
  if (state.mine && !state.free && Number(state.lease_left_ms) > settings.leaseMs / 2)
    return { holder: true, integrated: 0, size, more: false, checkpointOwed: grewPastCheckpoint(state, size) };
  if (!state.mine && !state.free) return { holder: false, integrated: 0, size, more: false, checkpointOwed: false };
  return undefined;
}

/**
 * One pass of the integrator, in one transaction (none when `idlePass` finds nothing to do): takes the lease (or
 * renews it), gives the committed events their indexes in the order of their sequence numbers, stores each entry and
 * the subtrees it completes, and signs a checkpoint when one is due.
 *
 * Order: the pass reads audit_pending as its statement's snapshot has it — only rows of committed transactions.
 * A transaction still open keeps its events out of this pass and they get later indexes, so nothing is skipped
 * and no index is ever given twice (the state row's lock serializes passes). What the order guarantees: if
 * transaction A committed before transaction B wrote its event, A's entry precedes B's (A's event has the lower
 * sequence number, and any pass that sees B's sees A's). Events that committed between two passes are ordered by
 * sequence number: PostgreSQL records no finer commit order (without track_commit_timestamp).
 */
export async function integrateOnce(db: Database, keys: AuditKeys, settings: IntegrationSettings): Promise<IntegrationPass> {
  const idle = await idlePass(db, settings);
  if (idle) return idle;
  return db.transaction(async (tx) => {
    const state = await lockState(tx);
    const size = Number(state.size);
    if (!state.mine && !state.free) return { holder: false, integrated: 0, size, more: false, checkpointOwed: false };
    const pending = await tx.query<{ seq: string; organization_id: string | null; event: string }>(
      "SELECT seq, organization_id, event FROM audit_pending ORDER BY seq LIMIT $1",
      [settings.batch + 1],
    );
    const more = pending.length > settings.batch;
    const batch = pending.slice(0, settings.batch);
    const frontier = new MerkleFrontier(size, await readNodes(tx, MerkleFrontier.edgeOf(size)));
    const entries: Array<{ idx: number; organizationId: string | null; entry: string }> = [];
    const nodes: Array<NodeId & { hash: Hash }> = [];
    for (const row of batch) {
      const idx = frontier.treeSize;
      const event = JSON.parse(row.event) as Record<string, JsonValue>;
      const entry = canonicalJson({ ...event, index: idx, previousRoot: Buffer.from(frontier.root()).toString("base64") });
      nodes.push(...frontier.append(leafHash(new TextEncoder().encode(entry))));
      entries.push({ idx, organizationId: row.organization_id, entry });
    }
    if (entries.length > 0) {
      await tx.query("INSERT INTO audit_entries (idx, organization_id, entry) SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[])", [
        entries.map((e) => String(e.idx)),
        entries.map((e) => e.organizationId),
        entries.map((e) => e.entry),
      ]);
      await tx.query(
        "INSERT INTO audit_hashes (level, idx, hash) SELECT l, i, decode(h, 'hex') FROM unnest($1::smallint[], $2::bigint[], $3::text[]) AS n(l, i, h)",
        [nodes.map((n) => n.level), nodes.map((n) => String(n.index)), nodes.map((n) => hex(n.hash))],
      );
      await tx.query("DELETE FROM audit_pending WHERE seq = ANY($1::bigint[])", [batch.map((r) => r.seq)]);
    }
    const newSize = frontier.treeSize;
    let checkpoint: number | undefined;
    if (checkpointDue(state, newSize, settings)) {
      const note = keys.signNote(checkpointText({ origin: keys.origin, size: newSize, root: frontier.root() }));
      await tx.query("INSERT INTO audit_checkpoints (size, note, signed_at) VALUES ($1, $2, now())", [String(newSize), note]);
      checkpoint = newSize;
    }
    await tx.query(
      `UPDATE audit_log_state SET size = $1, integrator = current_setting('application_name'),
              lease_until = now() + ($2 || ' milliseconds')::interval WHERE id`,
      [String(newSize), String(settings.leaseMs)],
    );
    return {
      holder: true,
      integrated: entries.length,
      size: newSize,
      ...(checkpoint !== undefined ? { checkpoint } : {}),
      more,
      checkpointOwed: checkpoint === undefined && grewPastCheckpoint(state, newSize),
    };
  });
}
