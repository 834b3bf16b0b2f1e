import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/store/database.js";
import { openPglite } from "../../src/store/pglite.js";

const setting = async (db: Database, name: string) =>
  (await db.query<{ setting: string; unit: string | null }>("SELECT setting, unit FROM pg_settings WHERE name = $1", [name]))[0];

/** The embedded engine's memory settings (src/store/pglite.ts, startOptions): what it keeps resident, and what it still holds. */
describe("the embedded engine's shared memory", () => {
  let db: Database;
  beforeAll(async () => {
    db = await openPglite("memory://");
  });
  afterAll(async () => db?.close());

  it("has a buffer pool of 8 MB, or the size PGLITE_SHARED_BUFFERS names, and the process slots of ten connections", async () => {
    expect(await setting(db, "shared_buffers")).toEqual({ setting: "1024", unit: "8kB" });
    expect(await setting(db, "max_connections")).toEqual({ setting: "10", unit: null });
    const larger = await openPglite("memory://", { sharedBuffers: "32MB" });
    try {
      expect(await setting(larger, "shared_buffers")).toEqual({ setting: "4096", unit: "8kB" });
    } finally {
      await larger.close();
    }
  });

  // A transaction of Strongroom's can at most lock every relation of its schema once (and some of the catalogs'); each
  // table made here is four relations locked (the table, its key's index, its TOAST table and that table's index).
  it("holds in one transaction the locks of four times the relations Strongroom's schema has", async () => {
    const [schema] = await db.query<{ relations: number }>(
      `SELECT count(*)::int AS relations FROM pg_class JOIN pg_namespace ON pg_namespace.oid = relnamespace
        WHERE nspname NOT IN ('pg_catalog', 'information_schema')`,
    );
    const relations = schema!.relations;
    expect(relations).toBeGreaterThan(300);
    await expect(
      db.transaction(async (tx) => {
        await tx.query(
          `DO $$ BEGIN FOR i IN 1..${relations} LOOP
             EXECUTE format('CREATE TABLE lock_headroom_%s (id int PRIMARY KEY, note text)', i);
           END LOOP; END $$`,
        );
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
  });
});
