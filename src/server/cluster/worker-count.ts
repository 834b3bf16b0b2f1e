import { availableParallelism } from "node:os";
import { DEFAULT_POOL_SIZE } from "../../store/database.js";

/** The flag and variable that set the number of workers, for messages. */
export const WORKERS_SETTING = "--workers (STRONGROOM_WORKERS)";

/** The PostgreSQL connections all the workers of one `serve` hold at most when DATABASE_POOL_SIZE is not set. */
const WORKERS_CONNECTION_BUDGET = 80;

/**
 * The PostgreSQL connections each of `workers` workers holds at most when DATABASE_POOL_SIZE is not set: as many as
 * a single process (DEFAULT_POOL_SIZE, 10), or fewer with more than 8 workers so that together they stay within 80 —
 * under PostgreSQL's default `max_connections` (100), with room for other clients — but never fewer than 2.
 */
export const connectionsPerWorker = (workers: number): number =>
  Math.max(2, Math.min(DEFAULT_POOL_SIZE, Math.floor(WORKERS_CONNECTION_BUDGET / workers)));

/**
 * How many worker processes `serve` runs (`--workers`, STRONGROOM_WORKERS). Unset: one per CPU core on
 * PostgreSQL, where every process is a peer of the others (the guarantees of test/cluster/ hold between them);
 * one on the embedded store, which belongs to one process — more is refused there, before anything starts.
 */
export function resolveWorkerCount(setting: string | undefined, onPostgres: boolean, cores = availableParallelism()): number {
  if (setting === undefined || setting.trim() === "") return onPostgres ? cores : 1;
  if (!/^\s*[1-9][0-9]{0,3}\s*$/.test(setting))
    throw new Error(`${WORKERS_SETTING} must be a whole number of processes from 1 to 9999, not ${JSON.stringify(setting)}`);
  const workers = Number(setting);
  if (workers > 1 && !onPostgres)
    throw new Error(
      `--workers ${workers}: the embedded store (PGlite in the data directory) belongs to one process, so it serves with one ` +
        "worker; for several, use PostgreSQL (DATABASE_URL), whose processes share one database",
    );
  return workers;
}
