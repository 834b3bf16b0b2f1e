import type { Database } from "../store/database.js";
import { filledTables, quotedIdentifier as quoted } from "../store/filled-tables.js";

const SNAPSHOT_SCHEMA = "strongroom_dev_snapshot";

async function dataTables(db: Database): Promise<{ schema: string; tables: string[] }> {
  const [current] = await db.query<{ schema: string }>("SELECT current_schema() AS schema");
  const schema = current!.schema;
  const rows = await db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables
      WHERE table_schema = $1 AND table_type = 'BASE TABLE' AND table_name <> 'schema_migrations' ORDER BY table_name`,
    [schema],
  );
  return { schema, tables: rows.map((r) => r.table_name) };
}

/**
 * Copies every table of the store that holds rows (its rows, not the schema's version) into a schema of its own, so
 * that `restoreSnapshot` can bring the store back to this moment: the dev server's seeded state. Most tables are
 * empty then, and copying one costs a table's creation: those are only emptied again on restore.
 */
export async function takeSnapshot(db: Database): Promise<void> {
  const { schema, tables } = await dataTables(db);
  const filled = await filledTables((sql) => db.query<{ name: string }>(sql), tables, schema);
  await db.transaction(async (tx) => {
    await tx.exec(`DROP SCHEMA IF EXISTS ${SNAPSHOT_SCHEMA} CASCADE; CREATE SCHEMA ${SNAPSHOT_SCHEMA}`);
    for (const table of filled) {
      await tx.exec(`CREATE TABLE ${SNAPSHOT_SCHEMA}.${quoted(table)} AS TABLE ${quoted(schema)}.${quoted(table)}`);
    }
  });
}

/** Every table back to its rows at `takeSnapshot` (none, for those without a copy), in one transaction (foreign keys checked by the copy's origin). */
export async function restoreSnapshot(db: Database): Promise<void> {
  const { schema, tables } = await dataTables(db);
  const copied = new Set(
    (
      await db.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'",
        [SNAPSHOT_SCHEMA],
      )
    ).map((r) => r.table_name),
  );
  const names = tables.map((t) => `${quoted(schema)}.${quoted(t)}`);
  await db.transaction(async (tx) => {
    await tx.exec("SET LOCAL session_replication_role = replica");
    await tx.exec(`TRUNCATE ${names.join(", ")}`);
    for (const table of tables.filter((t) => copied.has(t))) {
      await tx.exec(`INSERT INTO ${quoted(schema)}.${quoted(table)} OVERRIDING SYSTEM VALUE TABLE ${SNAPSHOT_SCHEMA}.${quoted(table)}`);
    }
  });
}
