import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { integrateOnce, type IntegrationSettings } from "../../src/audit/integrate.js";
import { insertAuditEvent } from "../../src/audit/record.js";
import { loadOrCreateAuditKeys, type AuditKeys } from "../../src/crypto/audit-keys.js";
import { createKeyEncryptionKey } from "../../src/crypto/key-encryption.js";
import type { Database } from "../../src/store/database.js";
import { openStore } from "../../src/store/open.js";
import { freshPostgresDatabase } from "../helpers/postgres-database.js";

const url = process.env.DATABASE_URL;
const SETTINGS: IntegrationSettings = { batch: 1000, checkpointIntervalMs: 60_000, leaseMs: 10_000 };

/** The state row's version: an UPDATE gives the row a new xmin, a FOR UPDATE lock a new xmax. */
const stateVersion = async (db: Database) =>
  (
    await db.query<{ xmin: string; xmax: string; lease_until: Date }>("SELECT xmin::text, xmax::text, lease_until FROM audit_log_state")
  )[0]!;

describe(`the audit integrator on an idle store (${url ? "PostgreSQL" : "PGlite"})`, () => {
  let database: Awaited<ReturnType<typeof freshPostgresDatabase>> | undefined;
  let db: Database;
  let keys: AuditKeys;

  beforeAll(async () => {
    database = url ? await freshPostgresDatabase(url) : undefined;
    db = await openStore({ dataDir: "memory://", ...(database ? { databaseUrl: database.url } : {}) });
    keys = await loadOrCreateAuditKeys(db, createKeyEncryptionKey(randomBytes(32)));
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it("writes nothing while its lease is fresh and nothing is pending, renews the lease once half of it is gone, and integrates what arrives", async () => {
    await insertAuditEvent(db, { organizationId: null, time: new Date(), type: "test", details: { name: "first" } });
    expect(await integrateOnce(db, keys, SETTINGS)).toMatchObject({ holder: true, integrated: 1, size: 1, checkpoint: 1 });
    const held = await stateVersion(db);

    // Idle: the same row version (no renewal, no lock taken) after any number of passes.
    for (let i = 0; i < 3; i++)
      expect(await integrateOnce(db, keys, SETTINGS)).toEqual({ holder: true, integrated: 0, size: 1, more: false, checkpointOwed: false });
    expect(await stateVersion(db)).toEqual(held);

    // Less than half of the lease left: the next pass renews it.
    await db.query("UPDATE audit_log_state SET lease_until = now() + interval '2 seconds'");
    const shortened = await stateVersion(db);
    expect(await integrateOnce(db, keys, SETTINGS)).toMatchObject({ holder: true, integrated: 0, size: 1 });
    const renewed = await stateVersion(db);
    expect(renewed.xmin).not.toBe(shortened.xmin);
    expect(renewed.lease_until.getTime() - Date.now()).toBeGreaterThan(SETTINGS.leaseMs / 2);

    // An event committed meanwhile is integrated by the next pass.
    await insertAuditEvent(db, { organizationId: null, time: new Date(), type: "test", details: { name: "second" } });
    // The checkpoint of size 1 is not a minute old: size 2 is owed one, which a later pass signs.
    expect(await integrateOnce(db, keys, SETTINGS)).toMatchObject({ holder: true, integrated: 1, size: 2, checkpointOwed: true });
    const count = await db.query<{ n: string }>("SELECT count(*)::text AS n FROM audit_entries");
    expect(count[0]!.n).toBe("2");
  });

  it("takes over a lease whose holder has no session left, and leaves alone one whose holder is alive", async () => {
    await db.query("UPDATE audit_log_state SET integrator = 'a process that is gone', lease_until = now() + interval '1 hour'");
    expect(await integrateOnce(db, keys, SETTINGS)).toMatchObject({ holder: true });
    const [state] = await db.query<{ mine: boolean }>(
      "SELECT integrator = current_setting('application_name') AS mine FROM audit_log_state",
    );
    expect(state!.mine).toBe(true);
    if (!database) return; // a live holder of another session needs a second connection: PostgreSQL only
    const other = new pg.Client({ connectionString: database.url, application_name: "another live process" });
    await other.connect();
    try {
      await db.query("UPDATE audit_log_state SET integrator = 'another live process', lease_until = now() + interval '1 hour'");
      const before = await stateVersion(db);
      expect(await integrateOnce(db, keys, SETTINGS)).toEqual({
        holder: false,
        integrated: 0,
        size: 2,
        more: false,
        checkpointOwed: false,
      });
      expect(await stateVersion(db)).toEqual(before);
    } finally {
      await other.end();
    }
    await db.query("UPDATE audit_log_state SET integrator = NULL");
  });

  it("signs a checkpoint that falls due although nothing new is pending", async () => {
    const latest = async () => (await db.query<{ size: string }>("SELECT max(size)::text AS size FROM audit_checkpoints"))[0]!.size;
    expect(await latest()).toBe("1");
    expect(await integrateOnce(db, keys, SETTINGS)).toEqual({ holder: true, integrated: 0, size: 2, more: false, checkpointOwed: true });
    expect(await integrateOnce(db, keys, { ...SETTINGS, checkpointIntervalMs: 0 })).toMatchObject({ checkpoint: 2, checkpointOwed: false });
    expect(await latest()).toBe("2");
    expect(await integrateOnce(db, keys, SETTINGS)).toEqual({ holder: true, integrated: 0, size: 2, more: false, checkpointOwed: false });
  });
});
