import { createHash } from "node:crypto";
import pg from "pg";
import {
  asUnavailable,
  DEFAULT_POOL_SIZE,
  isConnectionFailure,
  MIGRATION_LOCK,
  retried,
  TransactionAborted,
  transactionEnded,
  type Database,
  type Transaction,
} from "./database.js";
import { inOneWrite } from "./pg-internals.js";
import { findServer, parseHosts } from "./postgres-hosts.js";
import { connectWaiting, CONNECT_TIMEOUT_MS, describePostgres } from "./postgres-wait.js";
import { PROCESS_SESSION_NAME } from "./process-session.js";

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

/** The schema Strongroom's tables live in when DATABASE_SCHEMA is not set. */
export const DEFAULT_SCHEMA = "strongroom";

/** A schema name that needs no quoting anywhere (it is also written into every connection's search_path). */
export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export interface PostgresOptions {
  /** DATABASE_POOL_SIZE: the connections this process holds at most (default DEFAULT_POOL_SIZE). */
  poolSize?: number;
  /** DATABASE_SCHEMA: where Strongroom's tables live; unset, `strongroom` (or `public` for a store created there before). */
  schema?: string;
  /** DATABASE_WAIT_SECONDS, in ms: how long the first connection waits for an unavailable PostgreSQL (default 0). */
  waitMs?: number;
  /** Told what the first connection waits for, each time it tries again. */
  onWait?: (message: string) => void;
}

export interface PostgresDatabase extends Database {
  /** The schema every connection's search_path names. */
  readonly schema: string;
  /** What the operator should know about the schema chosen (a store still in `public`). */
  readonly warnings: string[];
}

/**
 * The schema to use. Given, it is used (and created when missing). Not given, `strongroom` — unless `public`
 * already holds a Strongroom store (created by a version before the tables had their own schema) and
 * `strongroom` does not: that store is kept, with a warning saying how to move it.
 */
async function chooseSchema(client: pg.ClientBase, configured: string | undefined): Promise<{ schema: string; warnings: string[] }> {
  const hasStore = async (schema: string) =>
    (await client.query("SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = 'schema_migrations'", [schema])).rowCount! > 0;
  const schema = configured ?? DEFAULT_SCHEMA;
  if (!SCHEMA_NAME.test(schema)) throw new Error(`DATABASE_SCHEMA ${JSON.stringify(schema)} must be a lowercase name (letters, digits, _)`);
  if (configured === undefined && !(await hasStore(DEFAULT_SCHEMA)) && (await hasStore("public"))) {
    return {
      schema: "public",
      warnings: [
        "Strongroom's tables are in the schema public (created by an earlier Strongroom, before its tables had a schema of their own); " +
          'using public. To move them, stop every Strongroom process and see "Upgrade" in docs/operations.md; or set DATABASE_SCHEMA=public to keep them there and silence this warning',
      ],
    };
  }
  // CREATE SCHEMA IF NOT EXISTS needs the CREATE privilege on the database even when the schema exists.
  const exists = (await client.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema])).rowCount! > 0;
  if (!exists) {
    // Processes starting at once on an empty database take turns, as for the migrations (see `migrate`).
    await client.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK})`);
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    } finally {
      await client.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`);
    }
  }
  return { schema, warnings: [] };
}

/**
 * How long a pooled connection may stay idle before it is closed. A new connection costs PostgreSQL a process, its
 * caches, and a parse and plan of every statement it then runs, so after a quiet spell a burst would pay that for
 * each connection it opens again (pg's default closes them after 10 s). Five minutes keeps them over ordinary lulls.
 */
const IDLE_CONNECTION_MS = 5 * 60_000;

/** A statement whose answer carries nothing: it may leave with the next one (see `transaction`). */
const ANSWERS_NOTHING = /^(SAVEPOINT [a-z_]+|SET LOCAL [a-z_]+ = [a-z0-9_]+)$/;

export async function openPostgres(connectionString: string, options: PostgresOptions = {}): Promise<PostgresDatabase> {
  const hosts = parseHosts(connectionString);
  const found = await connectWaiting(
    () => findServer(hosts),
    describePostgres(connectionString),
    options.waitMs ?? 0,
    options.onWait ?? (() => undefined),
  );
  const setup = found.client;
  let chosen: { schema: string; warnings: string[] };
  try {
    chosen = await chooseSchema(setup, options.schema);
  } finally {
    await setup.end();
  }
  // Pipeline mode: a statement issued before the previous one answered is written at once, so a
  // transaction's BEGIN travels with its first statement instead of costing a round trip of its own.
  // The search_path is a startup parameter of every connection: no statement of Strongroom's names a schema.
  const openPool = (target: string) => {
    const pool = new pg.Pool({
      connectionString: target,
      max: options.poolSize ?? DEFAULT_POOL_SIZE,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      idleTimeoutMillis: IDLE_CONNECTION_MS,
      pipeline: true,
      options: `-c search_path=${chosen.schema}`,
      // Who holds an activity's claim (src/pipeline/steps/claim.ts); an application_name in DATABASE_URL takes precedence.
      application_name: PROCESS_SESSION_NAME,
    } as pg.PoolConfig);
    pool.on("error", () => {
      // An idle client lost its connection; the pool replaces it on next use.
    });
    // A client checked out when its server goes away (shut down, failed over) emits "error" too: unheard, that
    // would end the process. Its query in flight fails, the transaction releases it broken, the pool replaces it.
    pool.on("connect", (client) => client.on("error", () => undefined));
    return pool;
  };
  let current = { target: found.target, pool: openPool(found.target) };
  const client = await current.pool.connect();
  client.release();

  // With several hosts, a connection failure looks again (at most once a second) for the server to use: after
  // a failover, the promoted standby; requests answer 503 until it is found.
  let looking: Promise<void> | undefined;
  let lastLook = 0;
  const lookAgain = () => {
    if (hosts.targets.length < 2 || looking || Date.now() - lastLook < 1000) return;
    lastLook = Date.now();
    looking = findServer(hosts)
      .then(async ({ target, client: probe }) => {
        await probe.end();
        if (target === current.target) return;
        const previous = current.pool;
        current = { target, pool: openPool(target) };
        void previous.end().catch(() => undefined);
      })
      .catch(() => undefined)
      .finally(() => (looking = undefined));
  };
  const unavailable = (error: unknown): never => {
    if (isConnectionFailure(error)) lookAgain();
    return asUnavailable(error);
  };

  const run = async <Row>(q: pg.PoolClient | pg.Pool, sql: string, params?: unknown[]) =>
    (await q.query({ name: statementName(sql), text: sql, values: params ?? [] } as pg.QueryConfig)).rows as Row[];

  return {
    kind: "postgres",
    schema: chosen.schema,
    warnings: chosen.warnings,
    // While PostgreSQL is unreachable every call fails with DatabaseUnavailable (the API's 503); the pool
    // connects again by itself once it is back.
    query: <Row>(sql: string, params?: unknown[]) => retried(() => run<Row>(current.pool, sql, params), renamePlans).catch(unavailable),
    exec: async (sql) => void (await current.pool.query(sql).catch(unavailable)),
    transaction(work) {
      let broken = false;
      const attempt = async () => {
        const conn = await current.pool.connect();
        // BEGIN, a SAVEPOINT and a SET LOCAL are not awaited (their answers are checked before COMMIT): each leaves in the
        // same socket write as the transaction's next statement, which spares a write and a wake-up of the
        // server process per statement. They fail only in a transaction already aborted, as the next would, or (a
        // SET LOCAL of a value PostgreSQL refuses) by aborting it: the statements after it fail, and the COMMIT.
        let begun = false;
        let ended = false;
        let ahead: string[] = ["BEGIN"];
        const answers: Array<Promise<unknown>> = [];
        const writeAhead = () => {
          for (const sql of ahead) {
            const answer = conn.query(sql);
            answer.catch(() => undefined);
            answers.push(answer);
          }
          ahead = [];
          begun = true;
        };
        const withAhead = <T>(issue: () => Promise<T>): Promise<T> => {
          if (ended) transactionEnded();
          if (ahead.length === 0) return issue();
          return inOneWrite(conn, () => {
            writeAhead();
            return issue();
          });
        };
        const tx: Transaction = {
          query: (sql, params) => withAhead(() => run(conn, sql, params)),
          exec: (sql) => {
            if (!ANSWERS_NOTHING.test(sql)) return withAhead(async () => void (await conn.query(sql)));
            if (ended) transactionEnded();
            ahead.push(sql);
            return Promise.resolve();
          },
          async queryThenCommit<Row>(sql: string, params?: unknown[]) {
            let commit!: Promise<pg.QueryResult>;
            const rows = withAhead(() =>
              inOneWrite(conn, () => {
                const answer = run<Row>(conn, sql, params);
                commit = conn.query("COMMIT");
                return answer;
              }),
            );
            ended = true;
            const [answered, committed] = await Promise.allSettled([rows, commit, ...answers]);
            // A COMMIT that failed (the connection lost, say) leaves the connection in a state not worth trusting.
            if (committed.status === "rejected") broken = true;
            // A failed statement turns the COMMIT after it into a ROLLBACK: nothing was written.
            if (answered.status === "rejected") throw answered.reason;
            if (committed.status === "rejected") throw committed.reason;
            if ((committed.value as pg.QueryResult).command === "ROLLBACK") throw new TransactionAborted();
            return answered.value as Row[];
          },
        };
        try {
          const result = await work(tx);
          if (ended) return result;
          if (begun || ahead.length > 1) {
            if (ahead.length > 0) inOneWrite(conn, writeAhead);
            await Promise.all(answers);
            // COMMIT of a transaction a failed statement aborted answers ROLLBACK: nothing was written.
            if ((await conn.query("COMMIT")).command === "ROLLBACK") throw new TransactionAborted();
          }
          return result;
        } catch (error) {
          if (begun && !ended) {
            await conn.query("ROLLBACK").catch(() => {
              broken = true; // never hand a connection in an unknown transaction state back to the pool
            });
          }
          throw error;
        } finally {
          conn.release(broken);
        }
      };
      return retried(attempt, renamePlans, () => !broken).catch(unavailable);
    },
    async close() {
      await looking;
      await current.pool.end();
    },
  };
}
