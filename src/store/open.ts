import type { Database } from "./database.js";
import { migrate } from "./migrations.js";
import { openPglite } from "./pglite.js";
import { openPostgres } from "./postgres.js";

export interface StoreOptions {
  databaseUrl?: string;
  dataDir: string;
}

/** Opens PostgreSQL when a URL is given, the embedded PGlite store otherwise, and migrates it. */
export async function openStore(options: StoreOptions): Promise<Database> {
  const db = options.databaseUrl ? await openPostgres(options.databaseUrl) : await openPglite(options.dataDir);
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}
