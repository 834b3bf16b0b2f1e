import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKeyring, readKeyRows, readSealRow } from "../../src/crypto/keyring/keyring-rows.js";
import { localRootWrapper } from "../../src/crypto/keyring/root-wrapper.js";
import type { Database, Queryable } from "../../src/store/database.js";
import { openStore } from "../../src/store/open.js";
import { freshPostgresDatabase } from "../helpers/postgres-database.js";

/**
 * Processes of a cluster start together on an empty store: one that finds the seal row goes on to unseal, and reads
 * the keyring's versions. The seal row must therefore never be there without version 1 beside it, or such a process
 * finds "no key" and exits (seen as `test/cluster/keyring.test.ts`'s PKCS#11 case failing now and then).
 */
describe(`creating the keyring (${process.env.DATABASE_URL ? "PostgreSQL" : "embedded"})`, () => {
  const dataDir = mkdtempSync(join(tmpdir(), "strongroom-keyring-creation-"));
  let database: Awaited<ReturnType<typeof freshPostgresDatabase>> | undefined;
  let db: Database;
  beforeAll(async () => {
    database = process.env.DATABASE_URL ? await freshPostgresDatabase(process.env.DATABASE_URL) : undefined;
    db = await openStore({ dataDir, ...(database ? { databaseUrl: database.url } : {}) });
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("writes the seal row and version 1 at once: another process never reads one without the other", async () => {
    const seen: Array<{ seal: boolean; versions: number }> = [];
    const look = async () => seen.push({ seal: (await readSealRow(db)) !== undefined, versions: (await readKeyRows(db)).length });
    // Each of createKeyring's statements is followed by what another process would read at that moment.
    const watched: Queryable = {
      query: async (sql, params) => {
        const rows = await db.query(sql, params);
        await look();
        return rows as never;
      },
      exec: (sql) => db.exec(sql),
    };
    await createKeyring(watched, localRootWrapper(randomBytes(32), "file"), { provider: "file" });

    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((s) => s.seal && s.versions === 0)).toEqual([]);
    expect(seen.at(-1)).toEqual({ seal: true, versions: 1 });
  });

  it("lets the first of two creations win whole: the second writes nothing", async () => {
    const before = await readKeyRows(db);
    await createKeyring(db, localRootWrapper(randomBytes(32), "file"), { provider: "file" });
    expect(await readKeyRows(db)).toEqual(before);
    expect(await db.query("SELECT count(*)::int AS seals FROM keyring_seal")).toEqual([{ seals: 1 }]);
  });
});
