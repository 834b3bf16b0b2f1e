import type { Database, Queryable } from "./database.js";

/** A statement and its parameters. */
export interface Statement {
  sql: string;
  params: unknown[];
}

/** What a statement read alongside another, with the statement itself (so a reader can tell it is the read it needs). */
export interface ReadAhead {
  statement: Statement;
  rows: Record<string, unknown>[];
}

/**
 * `db`, whose first statement takes `alongside` with it: on PostgreSQL the two go in one transaction, written
 * at once (BEGIN, the first statement, `alongside`, COMMIT: one round trip instead of two). Every later statement goes
 * to `db` as it is. `read()` answers what `alongside` read, once the first statement has run (undefined before, or if
 * either failed). On PGlite, where a statement costs no round trip, nothing is read ahead: `read()` answers undefined
 * and the reader makes its read itself, when it needs it (so a request refused before then costs the engine nothing).
 */
export function readAlongside(db: Database, alongside: Statement): { db: Queryable; read(): ReadAhead | undefined } {
  if (db.kind === "pglite") return { db, read: () => undefined };
  let sent = false;
  let read: Record<string, unknown>[] | undefined;
  const first = async <Row>(sql: string, params?: unknown[]): Promise<Row[]> => {
    const [rows, others] = await db.transaction((tx) =>
      Promise.all([
        tx.query<Row>(sql, params),
        // Its failure (rolling back a transaction that wrote nothing) leaves the first statement's answer standing.
        tx.queryThenCommit<Record<string, unknown>>(alongside.sql, alongside.params).catch(() => undefined),
      ]),
    );
    read = others;
    return rows;
  };
  return {
    db: {
      query<Row>(sql: string, params?: unknown[]): Promise<Row[]> {
        if (sent) return db.query<Row>(sql, params);
        sent = true;
        return first<Row>(sql, params);
      },
      exec: (sql) => db.exec(sql),
    },
    read: () => (read ? { statement: alongside, rows: read } : undefined),
  };
}
