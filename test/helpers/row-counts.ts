import type { Queryable } from "../../src/store/database.js";

/**
 * Row counts of every table, to prove a refused request wrote nothing. The audit log's tables are left out: it
 * records refusals too (a refused stamp, a failed authentication), by design.
 */
export async function rowCounts(db: Queryable): Promise<Record<string, number>> {
  const tables = await db.query<{ tablename: string }>(
    "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename NOT LIKE 'audit\\_%' ORDER BY tablename",
  );
  const union = tables.map(({ tablename }) => `SELECT '${tablename}' AS t, count(*)::int AS n FROM "${tablename}"`).join(" UNION ALL ");
  const rows = await db.query<{ t: string; n: number }>(union);
  return Object.fromEntries(rows.map((r) => [r.t, Number(r.n)]));
}
