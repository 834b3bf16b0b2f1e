import type { Queryable } from "../../src/store/database.js";

/**
 * The store's tables, but the audit log's: it records refusals too (a refused stamp, a failed authentication), by
 * design, and its integrator moves events into the log in the background, whatever a test is doing.
 */
export async function tablesOutsideTheAuditLog(db: Queryable): Promise<string[]> {
  const tables = await db.query<{ tablename: string }>(
    "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename NOT LIKE 'audit\\_%' ORDER BY tablename",
  );
  return tables.map((t) => t.tablename);
}

/** Row counts of every table outside the audit log, to prove a refused request wrote nothing. */
export async function rowCounts(db: Queryable): Promise<Record<string, number>> {
  const union = (await tablesOutsideTheAuditLog(db))
    .map((table) => `SELECT '${table}' AS t, count(*)::int AS n FROM "${table}"`)
    .join(" UNION ALL ");
  const rows = await db.query<{ t: string; n: number }>(union);
  return Object.fromEntries(rows.map((r) => [r.t, Number(r.n)]));
}
