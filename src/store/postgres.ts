import { createHash } from "node:crypto";
import pg from "pg";
import { retried, TransactionAborted, type Database } from "./database.js";
import { inOneWrite } from "./pg-internals.js";

/**
 * Every statement runs as a named prepared statement: each pooled connection parses and plans it once
 * and then only binds and executes it. A prepared statement whose tables changed shape (another
 * process migrated the schema) fails with "cached plan must not change result type"; then every name
 * gets a new generation, so each connection prepares the statements afresh, and the work is retried.
 */
let generation = 0;
const names = new Map<string, string>();
const MAX_NAMED_STATEMENTS = 2000;
function statementName(sql: string): string | undefined {
  let name = names.get(sql);
  if (!name) {
    // Statement texts are fixed in the code; the cap only guards against one built from input.
    if (names.size >= MAX_NAMED_STATEMENTS) return undefined;
    name = `sr${generation}_${createHash("sha256").update(sql).digest("hex").slice(0, 20)}`;
    names.set(sql, name);
  }
  return name;
}
function renamePlans(): void {
  generation++;
  names.clear();
}

export async function openPostgres(connectionString: string, poolSize = 10): Promise<Database> {
  // Pipeline mode: a statement issued before the previous one answered is written at once, so a
  // transaction's BEGIN travels with its first statement instead of costing a round trip of its own.
  const pool = new pg.Pool({ connectionString, max: poolSize, pipeline: true });
  pool.on("error", () => {
    // An idle client lost its connection; the pool replaces it on next use.
  });
  const client = await pool.connect();
  client.release();

  const run = async <Row>(q: pg.PoolClient | pg.Pool, sql: string, params?: unknown[]) =>
    (await q.query({ name: statementName(sql), text: sql, values: params ?? [] } as pg.QueryConfig)).rows as Row[];

  return {
    kind: "postgres",
    query: (sql, params) => retried(() => run(pool, sql, params), renamePlans),
    exec: async (sql) => void (await pool.query(sql)),
    transaction(work) {
      let broken = false;
      const attempt = async () => {
        const conn = await pool.connect();
        let begun: Promise<unknown> | undefined;
        // BEGIN is not awaited (its answer is checked before COMMIT): it leaves in the same socket write
        // as the transaction's first statement, which spares a write and a wake-up of the server process.
        const afterBegin = <T>(issue: () => Promise<T>): Promise<T> => {
          if (begun) return issue();
          return inOneWrite(conn, () => {
            begun = conn.query("BEGIN");
            begun.catch(() => undefined);
            return issue();
          });
        };
        try {
          const result = await work({
            query: (sql, params) => afterBegin(() => run(conn, sql, params)),
            exec: (sql) => afterBegin(async () => void (await conn.query(sql))),
          });
          if (begun) {
            await begun;
            // COMMIT of a transaction a failed statement aborted answers ROLLBACK: nothing was written.
            if ((await conn.query("COMMIT")).command === "ROLLBACK") throw new TransactionAborted();
          }
          return result;
        } catch (error) {
          if (begun) {
            await conn.query("ROLLBACK").catch(() => {
              broken = true; // never hand a connection in an unknown transaction state back to the pool
            });
          }
          throw error;
        } finally {
          conn.release(broken);
        }
      };
      return retried(attempt, renamePlans, () => !broken);
    },
    close: () => pool.end(),
  };
}
