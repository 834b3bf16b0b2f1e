import type { PGlite, Transaction } from "@electric-sql/pglite";
import { filledTables, quotedIdentifier as ident } from "./filled-tables.js";

/**
 * In-memory stores of one process reuse their engine: a closed in-memory store's engine is brought back to the state
 * the migrated template loads into (every table's rows, identity counters and schemas as they were, no session state)
 * and the next in-memory store takes it instead of starting an engine and loading the template again — most of a
 * test kit's start (`startStrongroom()` in test after test). One engine is kept, per buffer-pool size, for a moment; an
 * engine whose tables differ from the template's (DDL run on it) is closed, never reused.
 */

/** The template's state as a fresh engine holds it, read once per process (every fresh engine loads the same template). */
interface TemplateState {
  tables: string[];
  /** Each table the template fills, with its rows as JSON (json_agg): written back with json_populate_recordset. */
  rows: Map<string, string>;
  /** Each sequence's last_value (null: never used). */
  sequences: Map<string, string | null>;
  schemas: string[];
}

const APPLICATION_SCHEMAS = "nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema'";

async function rowsOf<Row>(db: PGlite | Transaction, sql: string): Promise<Row[]> {
  return (await db.query<Row>(sql)).rows;
}

const tablesOf = async (db: PGlite) =>
  (
    await rowsOf<{ name: string }>(
      db,
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1",
    )
  ).map((row) => row.name);

const schemasOf = async (db: PGlite) =>
  (await rowsOf<{ name: string }>(db, `SELECT nspname AS name FROM pg_namespace WHERE ${APPLICATION_SCHEMAS} ORDER BY 1`)).map(
    (row) => row.name,
  );

const sequencesOf = async (db: PGlite | Transaction) =>
  new Map(
    (
      await rowsOf<{ name: string; last: string | null }>(
        db,
        "SELECT format('%I.%I', schemaname, sequencename) AS name, last_value::text AS last FROM pg_sequences",
      )
    ).map((row) => [row.name, row.last]),
  );

const filledTablesOf = (db: PGlite, tables: string[]) => filledTables((sql) => rowsOf<{ name: string }>(db, sql), tables);

async function readTemplateState(db: PGlite): Promise<TemplateState> {
  const tables = await tablesOf(db);
  const rows = new Map<string, string>();
  for (const table of await filledTablesOf(db, tables)) {
    const [row] = await rowsOf<{ rows: string }>(db, `SELECT json_agg(t)::text AS rows FROM ${ident(table)} t`);
    rows.set(table, row!.rows);
  }
  return { tables, rows, sequences: await sequencesOf(db), schemas: await schemasOf(db) };
}

let templateState: Promise<TemplateState> | undefined;

/**
 * How long a reset engine waits for the next in-memory store. An idle engine keeps its process alive (PostgreSQL's timer
 * for flushing statistics, up to 10 seconds, which only closing it stops), so a spare nobody takes is closed soon: the
 * process exits at most this long after its last store closed. Tests that close one server and start the next take it
 * within milliseconds.
 */
const SPARE_LIFETIME_MS = 500;

interface Spare {
  engine: Promise<PGlite | undefined>;
  expiry?: NodeJS.Timeout;
}
const spares = new Map<string, Spare>();

/** Call on an engine fresh from the template, before anything writes to it: the first one tells what "as loaded" is. */
export function noteFreshEngine(db: PGlite): Promise<void> {
  templateState ??= readTemplateState(db);
  return templateState.then(() => undefined);
}

/** A spare engine for a store with this buffer pool, back in the template's state, if one is kept. */
export async function takeSpareEngine(sharedBuffers: string): Promise<PGlite | undefined> {
  const spare = spares.get(sharedBuffers);
  if (!spare) return undefined;
  spares.delete(sharedBuffers);
  clearTimeout(spare.expiry);
  return spare.engine;
}

/** Keeps a closed in-memory store's engine for the next one (resetting it meanwhile), or closes it when one is kept already. */
export function releaseEngine(db: PGlite, sharedBuffers: string): Promise<void> {
  if (spares.has(sharedBuffers) || !templateState) return db.close();
  const spare: Spare = {
    engine: resetToTemplate(db, templateState).then(
      (engine) => {
        const waiting = spares.get(sharedBuffers) === spare; // not taken yet
        if (waiting && !engine) spares.delete(sharedBuffers);
        if (waiting && engine) {
          spare.expiry = setTimeout(() => {
            spares.delete(sharedBuffers);
            engine.close().catch(() => undefined);
          }, SPARE_LIFETIME_MS).unref();
        }
        return engine;
      },
      async () => {
        if (spares.get(sharedBuffers) === spare) spares.delete(sharedBuffers);
        await db.close().catch(() => undefined);
        return undefined;
      },
    ),
  };
  spares.set(sharedBuffers, spare);
  return Promise.resolve();
}

async function resetToTemplate(db: PGlite, state: Promise<TemplateState>): Promise<PGlite | undefined> {
  const template = await state;
  // Whatever the last user left of its session: an open transaction, prepared statements, settings, locks, temporary tables.
  await db.exec("ROLLBACK");
  await db.exec("DISCARD ALL");
  for (const schema of await schemasOf(db)) {
    if (!template.schemas.includes(schema)) await db.exec(`DROP SCHEMA ${ident(schema)} CASCADE`);
  }
  const tables = await tablesOf(db);
  if (tables.join() !== template.tables.join()) {
    await db.close();
    return undefined;
  }
  const filled = new Set([...(await filledTablesOf(db, tables)), ...template.rows.keys()]);
  await db.transaction(async (tx) => {
    if (filled.size > 0) await tx.exec(`TRUNCATE ${[...filled].map(ident).join(", ")} RESTART IDENTITY CASCADE`);
    for (const [table, rows] of template.rows) {
      await tx.query(
        `INSERT INTO ${ident(table)} OVERRIDING SYSTEM VALUE SELECT * FROM json_populate_recordset(NULL::${ident(table)}, $1::json)`,
        [rows],
      );
    }
    for (const [sequence, last] of await sequencesOf(tx)) {
      const wanted = template.sequences.get(sequence);
      if (last === wanted) continue;
      if (wanted === null || wanted === undefined) await tx.exec(`ALTER SEQUENCE ${sequence} RESTART`);
      else await tx.query("SELECT setval($1, $2::bigint, true)", [sequence, wanted]);
    }
  });
  return db;
}
