import type { Database, Queryable } from "../../store/database.js";
import { purgeOldRowVersions, type PurgeReport } from "../../store/purge-old-row-versions.js";
import { SEALED_COLUMNS } from "../rekey.js";
import { sealedUnderPattern, type Keyring } from "./keyring.js";
import { readKeyRows } from "./keyring-rows.js";

/** Rows re-sealed per transaction: short transactions, so the re-seal never holds many rows' locks for long. */
const BATCH = 200;

const keyList = (key: string[]) => key.join(", ");

/**
 * Moves up to BATCH sealed values that are not under the keyring's sealing version (older versions, and `v1:` values
 * from before the keyring) to it, in one transaction. Rows another transaction holds are skipped (SKIP LOCKED): the
 * processes of a cluster share the work without waiting on each other. Answers how many moved.
 */
export async function resealBatch(db: Database, keyring: Keyring): Promise<number> {
  const sealing = keyring.sealingVersion;
  if (sealing === undefined) return 0;
  return db.transaction(async (tx) => {
    let moved = 0;
    for (const sealed of SEALED_COLUMNS) {
      if (moved >= BATCH) break;
      const rows = await tx.query<Record<string, string>>(
        `SELECT ${keyList(sealed.key)}, ${sealed.column} AS sealed FROM ${sealed.table}
         WHERE ${sealed.column} IS NOT NULL AND ${sealed.column} NOT LIKE $1 ORDER BY ${keyList(sealed.key)} LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [sealedUnderPattern(sealing), BATCH - moved],
      );
      const where = sealed.key.map((column, i) => `${column} = $${i + 2}`).join(" AND ");
      for (const row of rows) {
        const context = sealed.context(row);
        const plaintext = keyring.open(row.sealed!, context);
        await tx.query(`UPDATE ${sealed.table} SET ${sealed.column} = $1 WHERE ${where}`, [
          keyring.seal(plaintext, context),
          ...sealed.key.map((column) => row[column]),
        ]);
        plaintext.fill(0);
      }
      moved += rows.length;
    }
    return moved;
  });
}

/** How many sealed values are not under `version` yet (any older version, or `v1:`). */
export async function valuesNotUnder(db: Queryable, version: number): Promise<number> {
  let count = 0;
  for (const sealed of SEALED_COLUMNS) {
    const [row] = await db.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM ${sealed.table} WHERE ${sealed.column} IS NOT NULL AND ${sealed.column} NOT LIKE $1`,
      [sealedUnderPattern(version)],
    );
    count += Number(row!.n);
  }
  return count;
}

export interface Retirement {
  /** The versions deleted from the keyring: no value names them, and their data keys are gone from the store. */
  retired: number[];
  /** The rewrite of the keyring and the sealed tables that followed (src/store/purge-old-row-versions.ts). */
  purged?: PurgeReport;
}

/**
 * Once no value is sealed under anything but the sealing version, and that version is past its reseal_from (no
 * process seals under an older one), deletes the older versions, then rewrites the keyring and every table holding
 * sealed values so that neither the retired data keys nor the values once sealed under them survive as dead row
 * versions (or, embedded, in the write-ahead log): nothing a retired key opened remains. The delete names the rows
 * it removes, so in a cluster only the process that deleted them purges.
 */
export async function retireOlderVersions(db: Database, keyring: Keyring): Promise<Retirement> {
  const sealing = keyring.sealingVersion;
  if (sealing === undefined) return { retired: [] };
  const rows = await readKeyRows(db);
  const current = rows.find((r) => r.version === sealing);
  if (!current?.resealing || rows.every((r) => r.version >= sealing)) return { retired: [] };
  if ((await valuesNotUnder(db, sealing)) > 0) return { retired: [] };
  const retired = await db.transaction(async (tx) => {
    // Locked first, so no process adds a version (or retires) while this one counts and deletes.
    await tx.query("SELECT version FROM keyring ORDER BY version FOR UPDATE");
    if ((await valuesNotUnder(tx, sealing)) > 0) return [];
    const deleted = await tx.query<{ version: number }>("DELETE FROM keyring WHERE version < $1 RETURNING version", [sealing]);
    return deleted.map((r) => Number(r.version)).sort((a, b) => a - b);
  });
  if (retired.length === 0) return { retired };
  const purged = await purgeOldRowVersions(db, ["keyring", ...new Set(SEALED_COLUMNS.map((c) => c.table))]);
  return { retired, purged };
}
