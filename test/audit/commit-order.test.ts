import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportLog, type ExportRecord } from "../../src/audit/export.js";
import { integrateOnce, type IntegrationSettings } from "../../src/audit/integrate.js";
import { insertAuditEvent } from "../../src/audit/record.js";
import { verifyLog } from "../../src/audit/verify.js";
import { loadOrCreateAuditKeys, type AuditKeys } from "../../src/crypto/audit-keys.js";
import { createKeyEncryptionKey } from "../../src/crypto/key-encryption.js";
import { parseVerifierKey } from "../../src/crypto/signed-note.js";
import type { Database, Queryable } from "../../src/store/database.js";
import { openStore } from "../../src/store/open.js";
import { freshPostgresDatabase } from "../helpers/postgres-database.js";

const url = process.env.DATABASE_URL;
const SETTINGS: IntegrationSettings = { batch: 1000, checkpointIntervalMs: 0, leaseMs: 10_000 };

/**
 * Commit order on PostgreSQL, where transactions commit concurrently: an event's sequence number is taken when it is
 * written, not when its transaction commits, so integrating by sequence number past a transaction still open would
 * skip it (or give it an index out of turn). The integrator takes only committed events; these tests hold
 * transactions open on connections of their own and check that nothing is skipped, nothing rolled back appears,
 * indexes stay contiguous, and a transaction that committed before another wrote comes first in the log.
 */
describe.skipIf(!url)("audit log integration under concurrent transactions (PostgreSQL)", () => {
  let database: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  let db: Database;
  let keys: AuditKeys;
  const clients: pg.Client[] = [];

  /** A connection of its own, in Strongroom's schema. */
  async function connection(): Promise<pg.Client & Queryable> {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query("SET search_path TO strongroom");
    clients.push(client);
    return Object.assign(client, {
      query: client.query.bind(client),
      exec: async (sql: string) => void (await client.query(sql)),
    }) as never;
  }
  const asQueryable = (client: pg.Client): Queryable => ({
    query: async <Row>(sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as Row[],
    exec: async (sql: string) => void (await client.query(sql)),
  });
  const write = (client: pg.Client, name: string) =>
    insertAuditEvent(asQueryable(client), { organizationId: null, time: new Date(), type: "test", details: { name } });
  const logged = async () =>
    (await db.query<{ idx: string; entry: string }>("SELECT idx, entry FROM audit_entries ORDER BY idx")).map((r) => ({
      index: Number(r.idx),
      name: (JSON.parse(r.entry) as { name: string }).name,
    }));

  beforeAll(async () => {
    database = await freshPostgresDatabase(url!);
    db = await openStore({ databaseUrl: database.url, dataDir: "memory://" });
    keys = await loadOrCreateAuditKeys(db, createKeyEncryptionKey(randomBytes(32)));
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end()));
    await db?.close();
    await database?.drop();
  });

  it("integrates a transaction that wrote first but committed last after the one that committed first, skipping nothing", async () => {
    const [early, late, rolledBack] = [await connection(), await connection(), await connection()];
    await early.query("BEGIN");
    await write(early, "wrote first, commits last");
    await late.query("BEGIN");
    await write(late, "wrote last, commits first");
    await late.query("COMMIT");
    await rolledBack.query("BEGIN");
    await write(rolledBack, "rolled back");
    expect(await integrateOnce(db, keys, SETTINGS)).toMatchObject({ integrated: 1, size: 1 });
    await early.query("COMMIT");
    await rolledBack.query("ROLLBACK");
    expect(await integrateOnce(db, keys, SETTINGS)).toMatchObject({ integrated: 1, size: 2 });
    expect(await logged()).toEqual([
      { index: 0, name: "wrote last, commits first" },
      { index: 1, name: "wrote first, commits last" },
    ]);
    await db.query("DELETE FROM audit_pending");
  });

  it("under concurrent writers and two integrators: contiguous indexes, every committed event once, none rolled back, causal order kept", async () => {
    const before = (await logged()).length;
    const writers = await Promise.all(Array.from({ length: 6 }, () => connection()));
    type Written = { name: string; wroteAt: number; committedAt?: number };
    const written: Written[] = [];
    let writing = true;
    const writeAll = Promise.all(
      writers.map(async (client, w) => {
        for (let n = 0; n < 12; n++) {
          const event: Written = { name: `${w}.${n}`, wroteAt: performance.now() };
          await client.query("BEGIN");
          await write(client, event.name);
          await sleep(Math.random() * 8);
          if (Math.random() < 0.2) await client.query("ROLLBACK");
          else {
            await client.query("COMMIT");
            event.committedAt = performance.now();
          }
          written.push(event);
        }
      }),
    ).finally(() => (writing = false));
    // Two integrators, as two processes would run: the state row's lock serializes their passes.
    const integrate = async () => {
      while (writing) await integrateOnce(db, keys, SETTINGS);
    };
    await Promise.all([writeAll, integrate(), integrate()]);
    while ((await integrateOnce(db, keys, SETTINGS)).more);
    await integrateOnce(db, keys, SETTINGS);

    const log = (await logged()).slice(before);
    expect(log.map((e) => e.index)).toEqual(log.map((_, i) => before + i));
    const committed = written.filter((e) => e.committedAt !== undefined);
    expect(log.map((e) => e.name).sort()).toEqual(committed.map((e) => e.name).sort());
    const indexOf = new Map(log.map((e) => [e.name, e.index]));
    for (const a of committed)
      for (const b of committed)
        if (a.committedAt! < b.wroteAt)
          expect(indexOf.get(a.name)!, `${a.name} committed before ${b.name} was written`).toBeLessThan(indexOf.get(b.name)!);

    const records: ExportRecord[] = [];
    for await (const record of exportLog(db, keys, SETTINGS)) records.push(record);
    const verified = await verifyLog({
      key: parseVerifierKey(keys.verifierKey),
      entries: async function* () {
        for (const r of records) if (r.kind === "entry") yield r.text;
      },
      checkpoints: records.filter((r) => r.kind === "checkpoint").map((r) => r.text),
    });
    expect(verified.size).toBe(before + log.length);
  });
});
