import { createHash } from "node:crypto";
import pg from "pg";
import type { Database } from "./database.js";

/** Serialization failures and deadlocks are retried: the transaction did nothing. */
const RETRYABLE = new Set(["40001", "40P01"]);
const MAX_ATTEMPTS = 5;

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
function isStalePlan(error: unknown): boolean {
  return (error as { code?: string }).code === "0A000" && /cached plan/.test((error as Error).message);
}
function renamePlans(): void {
  generation++;
  names.clear();
}

export async function openPostgres(connectionString: string, poolSize = 10): Promise<Database> {
  const pool = new pg.Pool({ connectionString, max: poolSize });
  pool.on("error", () => {
    // An idle client lost its connection; the pool replaces it on next use.
  });
  const client = await pool.connect();
  client.release();

  const run = async <Row>(q: pg.PoolClient | pg.Pool, sql: string, params?: unknown[]) =>
    (await q.query({ name: statementName(sql), text: sql, values: params ?? [] } as pg.QueryConfig)).rows as Row[];

  return {
    kind: "postgres",
    async query(sql, params) {
      try {
        return await run(pool, sql, params);
      } catch (error) {
        if (!isStalePlan(error)) throw error;
        renamePlans();
        return run(pool, sql, params);
      }
    },
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
          if (isStalePlan(error) && attempt < MAX_ATTEMPTS) {
            renamePlans();
            continue;
          }
          throw error;
        } finally {
          conn.release();
        }
      }
    },
    close: () => pool.end(),
  };
}
