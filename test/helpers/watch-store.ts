import type { Transaction } from "../../src/store/database.js";
import type { TestServer } from "./server.js";

/**
 * Every statement the server's store is given from now on (`statements`, in and out of transactions), and
 * `afterStatement`: once, right after the next statement outside a transaction matching `pattern` has answered.
 */
export function watchStore(server: TestServer) {
  const watched = {
    statements: [] as string[],
    /** Of those, the ones that left with their transaction's COMMIT (`queryThenCommit`). */
    committedWith: [] as string[],
    afterStatement: undefined as { pattern: RegExp; hook: () => Promise<void> } | undefined,
  };
  const db = server.services.db;
  const query = db.query.bind(db);
  const transaction = db.transaction.bind(db);
  db.query = async <Row>(sql: string, params?: unknown[]) => {
    watched.statements.push(sql);
    const rows = await query<Row>(sql, params);
    const after = watched.afterStatement;
    if (after?.pattern.test(sql)) {
      watched.afterStatement = undefined;
      await after.hook();
    }
    return rows;
  };
  db.transaction = (work) =>
    transaction((tx) =>
      work({
        ...tx,
        query: <Row>(sql: string, params?: unknown[]) => {
          watched.statements.push(sql);
          return tx.query<Row>(sql, params);
        },
        queryThenCommit: <Row>(sql: string, params?: unknown[]) => {
          watched.statements.push(sql);
          watched.committedWith.push(sql);
          return tx.queryThenCommit<Row>(sql, params);
        },
      } satisfies Transaction),
    );
  return watched;
}
