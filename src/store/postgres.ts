import pg from "pg";
import type { Database, Queryable } from "./database.js";

/** Serialization failures and deadlocks are retried: the transaction did nothing. */
const RETRYABLE = new Set(["40001", "40P01"]);
const MAX_ATTEMPTS = 5;

export async function openPostgres(connectionString: string, poolSize = 10): Promise<Database> {
  const pool = new pg.Pool({ connectionString, max: poolSize });
  pool.on("error", () => {
    // An idle client lost its connection; the pool replaces it on next use.
  });
  const client = await pool.connect();
  client.release();

  const run = async <Row>(q: Queryable | pg.PoolClient | pg.Pool, sql: string, params?: unknown[]) =>
    ((await (q as pg.Pool).query(sql, params as unknown[])) as pg.QueryResult).rows as Row[];

  return {
    kind: "postgres",
    query: (sql, params) => run(pool, sql, params),
    exec: async (sql) => void (await pool.query(sql)),
    async transaction(work) {
      for (let attempt = 1; ; attempt++) {
        const conn = await pool.connect();
        try {
          await conn.query("BEGIN");
          const result = await work({
            query: (sql, params) => run(conn, sql, params),
            exec: async (sql) => void (await conn.query(sql)),
          });
          await conn.query("COMMIT");
          return result;
        } catch (error) {
          await conn.query("ROLLBACK").catch(() => undefined);
          const code = (error as { code?: string }).code;
          if (code && RETRYABLE.has(code) && attempt < MAX_ATTEMPTS) continue;
          throw error;
        } finally {
          conn.release();
        }
      }
    },
    close: () => pool.end(),
  };
}
