import type { Database } from "./database.js";
import { migrate, type Migration } from "./migrations.js";
import { openPglite } from "./pglite.js";
import { describePostgres } from "./postgres-wait.js";

export interface StoreOptions {
  databaseUrl?: string;
  /** DATABASE_SCHEMA: PostgreSQL only. */
  databaseSchema?: string;
  dataDir: string;
  /** PGLITE_SHARED_BUFFERS: the embedded engine's buffer pool (default 8MB). */
  pgliteSharedBuffers?: string;
  /** DATABASE_POOL_SIZE: PostgreSQL only, the connections this process holds at most. */
  databasePoolSize?: number;
  /** DATABASE_WAIT_SECONDS, in ms: how long to wait for an unavailable PostgreSQL at start (default 0). */
  databaseWaitMs?: number;
  /** Told what the start waits for, each time it tries again. */
  onWait?: (message: string) => void;
}

/** What was opened, for the start-up log: never the database URL's password. */
export interface StoreReport {
  kind: Database["kind"];
  /** The data directory (embedded), or the PostgreSQL host, port and database. */
  location: string;
  /** PostgreSQL: the schema of Strongroom's tables. */
  schema?: string;
  /** The schema version after migrating, and the migrations this start applied. */
  schemaVersion: number;
  applied: Migration[];
  warnings: string[];
}

/** Opens PostgreSQL when a URL is given, the embedded PGlite store otherwise, and migrates it. */
export async function openStoreReporting(options: StoreOptions): Promise<{ db: Database; report: StoreReport }> {
  // PostgreSQL's client (pg, half a second of module loading) is loaded only for PostgreSQL.
  const postgres = options.databaseUrl
    ? await (
        await import("./postgres.js")
      ).openPostgres(options.databaseUrl, {
        schema: options.databaseSchema,
        ...(options.databasePoolSize !== undefined ? { poolSize: options.databasePoolSize } : {}),
        ...(options.databaseWaitMs !== undefined ? { waitMs: options.databaseWaitMs } : {}),
        ...(options.onWait ? { onWait: options.onWait } : {}),
      })
    : undefined;
  const db = postgres ?? (await openPglite(options.dataDir, { sharedBuffers: options.pgliteSharedBuffers }));
  try {
    const migrated = await migrate(db);
    return {
      db,
      report: {
        kind: db.kind,
        location: options.databaseUrl ? describePostgres(options.databaseUrl) : options.dataDir,
        ...(postgres ? { schema: postgres.schema } : {}),
        schemaVersion: migrated.version,
        applied: migrated.applied,
        warnings: postgres?.warnings ?? [],
      },
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}

/** Opens PostgreSQL when a URL is given, the embedded PGlite store otherwise, and migrates it. */
export async function openStore(options: StoreOptions): Promise<Database> {
  return (await openStoreReporting(options)).db;
}
