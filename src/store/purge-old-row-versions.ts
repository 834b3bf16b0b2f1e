import type { Database } from "./database.js";

/** What `purgeOldRowVersions` did, and what it could not do (with the reason). */
export interface PurgeReport {
  /** Tables rewritten by VACUUM FULL: their dead row versions are in no file any more. */
  rewritten: string[];
  /** A checkpoint ran: the old files are unlinked. */
  checkpoint: boolean;
  /** Embedded: the write-ahead log was switched and checkpointed past every segment that held the old rows. */
  walRecycled: boolean;
  warnings: string[];
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * After rows were rewritten (a rekey re-seals every secret), their earlier versions stay in the table files as dead
 * rows, and in the write-ahead log, until PostgreSQL reuses the space. This rewrites `tables` (VACUUM FULL: a new
 * file holding only live rows; the old one is unlinked at the checkpoint) and, where the role may, pg_statistic and a
 * checkpoint. On the embedded store it also drops every write-ahead log segment written before (`dropWrittenWal`).
 * Run with no server on the store: VACUUM FULL locks each table while it runs.
 */
export async function purgeOldRowVersions(db: Database, tables: readonly string[]): Promise<PurgeReport> {
  const report: PurgeReport = { rewritten: [], checkpoint: false, walRecycled: false, warnings: [] };
  for (const table of tables) {
    try {
      await db.exec(`VACUUM FULL ${table}`);
      report.rewritten.push(table);
    } catch (error) {
      report.warnings.push(`VACUUM FULL ${table} failed (${message(error)}): its old row versions remain until it is vacuumed`);
    }
  }
  const [role] = await db.query<{ superuser: boolean }>("SELECT rolsuper AS superuser FROM pg_roles WHERE rolname = current_user");
  if (role?.superuser) {
    // Statistics gathered before migration 0032 may hold sampled sealed values; that migration dropped them.
    await db.exec("VACUUM FULL pg_statistic");
  } else {
    report.warnings.push("not a superuser: pg_statistic was not rewritten (run VACUUM FULL pg_statistic as a superuser)");
  }
  try {
    await db.exec("CHECKPOINT");
    report.checkpoint = true;
  } catch (error) {
    report.warnings.push(`CHECKPOINT failed (${message(error)}): the old files go at the server's next checkpoint`);
  }
  if (db.kind === "pglite" && report.checkpoint) {
    report.walRecycled = await dropWrittenWal(db);
    if (!report.walRecycled) report.warnings.push("the write-ahead log could not be moved past its older segments: they remain in pg_wal/");
  }
  return report;
}

/** Segment files of the write-ahead log (not archive_status/, summaries/). */
const SEGMENT = "^[0-9A-F]{24}$";
const MAX_SWITCHES = 32;

/**
 * Embedded store: removes every write-ahead log segment that exists now. A segment PostgreSQL is done with is
 * normally recycled — renamed to a future name with its old bytes in it, overwritten only as far as new WAL reaches —
 * so with recycling off (for this session: PGlite checkpoints in the session that asks), the log is switched to a new,
 * zero-filled segment and checkpointed until the checkpoint's redo point is past the newest segment that existed
 * before; then those are unlinked.
 */
async function dropWrittenWal(db: Database): Promise<boolean> {
  await db.exec("SET wal_recycle = off");
  try {
    const [newest] = await db.query<{ name: string }>("SELECT max(name) AS name FROM pg_ls_waldir() WHERE name ~ $1", [SEGMENT]);
    for (let switches = 0; switches < MAX_SWITCHES; switches++) {
      await db.query("SELECT pg_switch_wal()");
      await db.exec("CHECKPOINT");
      const [redo] = await db.query<{ file: string }>("SELECT redo_wal_file AS file FROM pg_control_checkpoint()");
      if (!newest?.name || redo!.file > newest.name) return true;
    }
    return false;
  } finally {
    await db.exec("RESET wal_recycle");
  }
}
