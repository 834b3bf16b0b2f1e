import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { verifyExportDirectory } from "../../src/audit/export-directory.js";
import { LogProblem } from "../../src/audit/verify.js";
import type { Queryable } from "../../src/store/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { AUDIT_TEST_ENV, exportTo, settled } from "./helpers.js";

/**
 * Tampering with the database directly, as a database administrator could, and `audit verify` naming it: an
 * entry updated, one deleted, two reordered, the tail truncated, a checkpoint altered, and a rollback of the whole
 * log (entries, checkpoints, subtrees and head) that only a checkpoint kept elsewhere reveals. Each tamper is
 * undone before the next (the tables are put back as they were).
 */
describe("audit verify finds what was done to the database", () => {
  let server: TestServer;
  let db: Queryable;
  let size: number;
  let kept: string;
  let saved: { entries: unknown[][]; checkpoints: unknown[][]; hashes: unknown[][]; state: unknown[] };

  /** The first problem `audit verify` finds in a fresh export (with the key kept elsewhere, and `checkpoint` if given). */
  async function problem(checkpoint?: string): Promise<LogProblem | undefined> {
    const dir = await exportTo(server.services);
    try {
      if (checkpoint) writeFileSync(join(dir, "..", "kept"), checkpoint);
      await verifyExportDirectory(dir, {
        key: server.services.audit.keys.verifierKey,
        ...(checkpoint ? { checkpoint: join(dir, "..", "kept") } : {}),
      });
      return undefined;
    } catch (error) {
      if (error instanceof LogProblem) return error;
      throw error;
    }
  }

  async function rows(sql: string): Promise<unknown[][]> {
    return (await db.query<Record<string, unknown>>(sql)).map((row) => Object.values(row));
  }

  beforeAll(async () => {
    server = await startTestServer({ env: AUDIT_TEST_ENV });
    db = server.services.db;
    const client = server.client();
    for (let i = 0; i < 6; i++) await client.createUserTag({ userTagName: `tag ${i}`, userIds: [] });
    size = await settled(db);
    const dir = await exportTo(server.services);
    kept = readFileSync(join(dir, "checkpoint"), "utf8");
    await verifyExportDirectory(dir, { key: server.services.audit.keys.verifierKey });
    saved = {
      entries: await rows("SELECT idx, organization_id, entry FROM audit_entries ORDER BY idx"),
      checkpoints: await rows("SELECT size, note, signed_at FROM audit_checkpoints ORDER BY size"),
      hashes: await rows("SELECT level, idx, encode(hash, 'hex') FROM audit_hashes"),
      state: Object.values((await db.query<Record<string, unknown>>("SELECT size FROM audit_log_state"))[0]!),
    };
  });
  afterEach(async () => {
    // Put every table back as it was, and check that the log verifies again. In one transaction holding the log's
    // state row, as a pass of the integrator does: a pass in between would sign a checkpoint of a half-restored log.
    await server.services.db.transaction(async (tx) => {
      await tx.query("SELECT 1 FROM audit_log_state WHERE id FOR UPDATE");
      await tx.query("DELETE FROM audit_entries");
      await tx.query("INSERT INTO audit_entries SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[])", columns(saved.entries, 3));
      await tx.query("DELETE FROM audit_checkpoints");
      await tx.query(
        "INSERT INTO audit_checkpoints SELECT * FROM unnest($1::bigint[], $2::text[], $3::timestamptz[])",
        columns(saved.checkpoints, 3),
      );
      await tx.query("DELETE FROM audit_hashes");
      await tx.query(
        "INSERT INTO audit_hashes SELECT l, i, decode(h, 'hex') FROM unnest($1::smallint[], $2::bigint[], $3::text[]) AS n(l, i, h)",
        columns(saved.hashes, 3),
      );
      await tx.query("UPDATE audit_log_state SET size = $1", saved.state);
      await tx.query("DELETE FROM audit_pending");
    });
    expect(await problem()).toBeUndefined();
  });
  afterAll(() => server?.close());

  const columns = (table: unknown[][], count: number) =>
    Array.from({ length: count }, (_, c) => table.map((row) => (row[c] instanceof Date ? (row[c] as Date).toISOString() : row[c])));
  const middle = () => Math.floor(size / 2);

  it("an entry updated: an edit at its index", async () => {
    const index = middle();
    await db.query(
      `UPDATE audit_entries SET entry = replace(entry, 'ACTIVITY_STATUS_COMPLETED', 'ACTIVITY_STATUS_FAILED') WHERE idx = $1`,
      [String(index)],
    );
    expect(await problem()).toMatchObject({ kind: "edit", index });
  });

  it("the last entry before a checkpoint updated: an edit at its index, not at the checkpoint before", async () => {
    // With the checkpoints between removed, the latest is the first to see the change, before any later entry names the
    // root it broke: every entry before the changed one was vouched for by the next one's root, so it is the last.
    await db.query("DELETE FROM audit_checkpoints WHERE size < (SELECT max(size) FROM audit_checkpoints)");
    const index = size - 1;
    await db.query(
      `UPDATE audit_entries SET entry = replace(entry, 'ACTIVITY_STATUS_COMPLETED', 'ACTIVITY_STATUS_FAILED') WHERE idx = $1`,
      [String(index)],
    );
    expect(await problem()).toMatchObject({ kind: "edit", index });
  });

  it("an entry deleted: a gap at its index", async () => {
    await db.query("DELETE FROM audit_entries WHERE idx = $1", [String(middle())]);
    expect(await problem()).toMatchObject({ kind: "gap", index: middle() });
  });

  it("two entries reordered: a reorder at the first", async () => {
    await db.query(
      `UPDATE audit_entries e SET entry = o.entry, organization_id = o.organization_id FROM audit_entries o
        WHERE (e.idx = $1 AND o.idx = $2) OR (e.idx = $2 AND o.idx = $1)`,
      [String(middle()), String(middle() + 1)],
    );
    expect(await problem()).toMatchObject({ kind: "reorder", index: middle() });
  });

  it("the tail truncated: a deletion where it was cut", async () => {
    await db.query("DELETE FROM audit_entries WHERE idx >= $1", [String(middle())]);
    expect(await problem()).toMatchObject({ kind: "deletion", index: middle() });
  });

  it("a checkpoint altered: a bad signature", async () => {
    await db.query("UPDATE audit_checkpoints SET note = regexp_replace(note, '\\n[0-9]+\\n', E'\\n999\\n') WHERE size = $1", [
      String(size),
    ]);
    expect(await problem()).toMatchObject({ kind: "bad signature", index: 999 });
  });

  it("the log rolled back and written anew: unseen without a checkpoint kept elsewhere, an inconsistent checkpoint with one", async () => {
    const cut = middle();
    await db.query("DELETE FROM audit_entries WHERE idx >= $1", [String(cut)]);
    await db.query("DELETE FROM audit_checkpoints WHERE size > $1", [String(cut)]);
    // Every subtree that covers a leaf at or past the cut.
    await db.query("DELETE FROM audit_hashes WHERE (idx + 1) * (2 ^ level)::bigint > $1", [String(cut)]);
    await db.query("UPDATE audit_log_state SET size = $1", [String(cut)]);
    // The server goes on and signs the new history itself: the checkpoints in the store all agree with it.
    const client = server.client();
    for (let i = 0; i < size - cut + 1; i++) await client.createUserTag({ userTagName: `rewritten ${i}`, userIds: [] });
    await settled(db);
    expect(await problem()).toBeUndefined();
    expect(await problem(kept)).toMatchObject({
      kind: "inconsistent checkpoint",
      message: expect.stringContaining("history was rewritten"),
    });
  });
});
