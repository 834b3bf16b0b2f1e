import { PGlite } from "@electric-sql/pglite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Database } from "./database.js";
import { acquireDataDirLock } from "./data-dir-lock.js";

/**
 * The embedded store: PostgreSQL compiled to WASM, persisted under `<dataDir>/pgdata`.
 * PGlite is single-connection, so only one process may open a data directory; a lock file
 * enforces that before PGlite touches the files. `dataDir` "memory://" gives a throwaway store.
 */
export async function openPglite(dataDir: string): Promise<Database> {
  let releaseLock = () => {};
  let db: PGlite;
  if (dataDir.startsWith("memory://")) {
    db = await PGlite.create();
  } else {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    releaseLock = acquireDataDirLock(dataDir);
    try {
      db = await PGlite.create(join(dataDir, "pgdata"));
    } catch (error) {
      releaseLock();
      throw error;
    }
  }
  return {
    kind: "pglite",
    query: async (sql, params) => (await db.query(sql, params)).rows as never[],
    exec: async (sql) => void (await db.exec(sql)),
    transaction: (work) =>
      db.transaction((tx) =>
        work({
          query: async (sql, params) => (await tx.query(sql, params)).rows as never[],
          exec: async (sql) => void (await tx.exec(sql)),
        }),
      ),
    async close() {
      await db.close();
      releaseLock();
    },
  };
}
