import { PGlite, types, type PGliteOptions } from "@electric-sql/pglite";
import { existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { AFTER_COMMIT_MESSAGE, retried, TransactionAborted, type Database, type Transaction } from "./database.js";
import { acquireDataDirLock } from "./data-dir-lock.js";
import { createPglite } from "./pglite-create.js";
import { migrate } from "./migrations.js";
import { archiveOf } from "./pglite-backup.js";
import { pgliteEngine, type PgliteEngine } from "./pglite-internals.js";
import { noteFreshEngine, releaseEngine, takeSpareEngine } from "./pglite-spare-engine.js";
import { migratedTemplate } from "./pglite-template.js";
import { PROCESS_SESSION_NAME } from "./process-session.js";
import { unpackDataDir } from "./unpack-data-dir.js";

/** A statement whose answer carries nothing: it may go with the next one (see `inOneTransaction`). */
const SAVEPOINT = /^SAVEPOINT [a-z_]+$/;

/** Statement texts are fixed in the code; the cap only guards against one built from input. */
const MAX_NAMED_STATEMENTS = 2000;

interface Prepared {
  name: string;
  parameterTypes: number[];
}

/** A statement of an engine call: simple without `params` (BEGIN, SAVEPOINT, COMMIT), prepared with them. */
interface Batched {
  sql: string;
  params?: unknown[];
}

type EngineResult = ReturnType<PgliteEngine["results"]>[number];

/** A statement waiting to go with the transaction's next one; a `queryAhead` one is settled with its rows. */
interface AheadStatement extends Batched {
  settle?: { resolve(rows: Record<string, unknown>[]): void; reject(error: unknown): void };
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** JSON text as is, any other value as JSON; an array is refused, as `pg` sends one as a PostgreSQL array (and fails). */
function jsonParameter(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) throw new TypeError("a json or jsonb parameter takes JSON text (JSON.stringify), not an array");
  return JSON.stringify(value);
}

/** The timestamptz parser `pg` registers (pg-types' own, postgres-date): the embedded store needs nothing else of `pg`. */
const parseTimestamptz = createRequire(import.meta.url)("postgres-date") as (text: string) => Date | string | null;

/** The codecs that differ from PGlite's own, so that both stores give a query the same values (see test/store/contract.test.ts). */
const codecs: Pick<PGliteOptions, "parsers" | "serializers"> = {
  // int8 as its exact decimal text, as `pg` gives it (PGlite's own: a number, or a BigInt past 2^53).
  // timestamptz by `pg`'s own parser: PGlite's, `new Date(text)`, gives an Invalid Date for an offset with seconds
  // (a session time zone's local mean time before about 1900, such as "+05:41:16" in Asia/Kathmandu).
  parsers: { [types.INT8]: (text: string) => text, [types.TIMESTAMPTZ]: parseTimestamptz },
  serializers: { [types.JSON]: jsonParameter, [types.JSONB]: jsonParameter },
};

/**
 * The embedded store: PostgreSQL compiled to WASM, persisted under `<dataDir>/pgdata`.
 * PGlite is single-connection, so only one process may open a data directory; a lock file
 * enforces that before PGlite touches the files. `dataDir` "memory://" gives a throwaway store.
 * One connection also means one transaction at a time: a transaction, and a statement outside one,
 * waits for the transaction under way to end.
 *
 * Statements run as named prepared statements: PGlite's own `query` parses and plans every statement
 * each time and makes six calls into the WASM engine per statement; here a statement is parsed and
 * described once, and each run is one call (bind, describe, execute, sync) — about five times faster
 * for the statements Strongroom runs. What this takes of PGlite's internals is in pglite-internals.ts.
 */
export const DEFAULT_PGLITE_SHARED_BUFFERS = "16MB";

/**
 * PGlite's start parameters with a smaller buffer pool than PostgreSQL's 128MB: in the WASM engine the pool
 * is ordinary memory the process keeps resident, about 120 MB of the embedded server's footprint, while an
 * embedded store's working set is small and what misses the pool is read from the OS page cache.
 */
function startOptions(sharedBuffers: string): Pick<PGliteOptions, "startParams"> {
  if (!/^\d+(kB|MB|GB)$/.test(sharedBuffers)) {
    throw new Error(`PGLITE_SHARED_BUFFERS ${JSON.stringify(sharedBuffers)} must be a size such as 16MB (kB, MB or GB)`);
  }
  // log_startup_progress_interval: an engine started from existing files (a data directory, the template) otherwise keeps
  // PostgreSQL's start-up progress timer firing every 10 seconds for its whole life, which keeps an idle process alive.
  return { startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${sharedBuffers}`, "-c", "log_startup_progress_interval=0"] };
}

type Settings = Pick<PGliteOptions, "parsers" | "serializers" | "startParams">;

/**
 * A fresh in-memory store, migrated and dumped: the template new stores load (pglite-template.ts). Strongroom uses the
 * `postgres` database only; `initdb`'s template0 and template1 (there for CREATE DATABASE, which an embedded store never
 * runs) are dropped: half the template's files, which every new store would otherwise unpack. The checkpoint then
 * leaves the dump's WAL with nothing to replay: a store that loads it starts without redoing the migrations.
 */
async function buildTemplate(settings: Settings): Promise<Blob> {
  const fresh = await createPglite(settings);
  try {
    await migrate(
      wrap(
        fresh,
        () => fresh.close(),
        () => {},
      ),
    );
    for (const database of ["template0", "template1"]) {
      await fresh.exec(`ALTER DATABASE ${database} IS_TEMPLATE false`);
      await fresh.exec(`DROP DATABASE ${database}`); // a statement of its own: DROP DATABASE runs outside a transaction
    }
    await fresh.exec("CHECKPOINT");
    return await fresh.dumpDataDir("none");
  } finally {
    await fresh.close();
  }
}

/** A template built afresh, never taken from a cache: what `npm run build` ships (scripts/build-pglite-template.mjs). */
export const buildMigratedTemplate = (): Promise<Blob> => buildTemplate({ ...codecs, ...startOptions(DEFAULT_PGLITE_SHARED_BUFFERS) });

export async function openPglite(dataDir: string, options: { sharedBuffers?: string } = {}): Promise<Database> {
  let releaseLock = () => {};
  let db: PGlite;
  const sharedBuffers = options.sharedBuffers ?? DEFAULT_PGLITE_SHARED_BUFFERS;
  const settings: Settings = { ...codecs, ...startOptions(sharedBuffers) };
  const inMemory = dataDir.startsWith("memory://");
  let close = () => db.close();
  if (inMemory) {
    const spare = await takeSpareEngine(sharedBuffers);
    if (spare) db = spare;
    else {
      const template = await migratedTemplate(() => buildTemplate(settings));
      db = await createPglite({ ...settings, loadDataDir: template });
      await noteFreshEngine(db);
    }
    close = () => releaseEngine(db, sharedBuffers);
  } else {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    releaseLock = acquireDataDirLock(dataDir);
    try {
      const pgdata = join(dataDir, "pgdata");
      // A new data directory starts as a copy of the migrated template, written to disk durably before PGlite opens it,
      // instead of PGlite's in-process initdb and every migration. A directory that has a pgdata/ opens as it always did.
      if (!existsSync(pgdata)) {
        const template = await migratedTemplate(() => buildTemplate(settings));
        await unpackDataDir(new Uint8Array(await template.arrayBuffer()), pgdata);
      }
      db = await createPglite(pgdata, settings);
    } catch (error) {
      releaseLock();
      throw error;
    }
  }
  try {
    // Who holds an activity's claim (src/pipeline/steps/claim.ts): after a crash, the next process's session has another name.
    await db.query("SELECT set_config('application_name', $1, false)", [PROCESS_SESSION_NAME]);
    return wrap(db, close, releaseLock, { snapshots: !inMemory });
  } catch (error) {
    await db.close();
    releaseLock();
    throw error;
  }
}

function wrap(db: PGlite, closeEngine: () => Promise<void>, releaseLock: () => void, options: { snapshots?: boolean } = {}): Database {
  const engine: PgliteEngine = pgliteEngine(db);
  const { message } = engine;
  let prepared = new Map<string, Prepared>();
  let generation = 0;

  // An in-memory store's engine may serve another store once this one is closed: nothing runs on it through this one then.
  let closed = false;
  const open = () => {
    if (closed) throw new Error("the store is closed");
    return db;
  };
  const call = (messages: Uint8Array[]) => open().execProtocolStream(concat(messages), { syncToFs: false });

  /** The messages that run a statement: a simple query without `params` (BEGIN, SAVEPOINT, COMMIT), else prepared. */
  function messagesOf(statement: Batched): Uint8Array[] {
    if (!statement.params) return [message.query(statement.sql)];
    const { name, parameterTypes } = prepared.get(statement.sql)!;
    const values = statement.params.map((value, i) =>
      value === null || value === undefined ? null : engine.serialize(value, parameterTypes[i]!),
    );
    // The unnamed statement is parsed again where it is bound: another statement of the call may have replaced it.
    const parse = name ? [] : [message.parse("", statement.sql)];
    return [...parse, message.bind(name, values), message.describePortal(), message.execute(), message.sync()];
  }

  /**
   * Runs `statements` in order, in one engine call once each is prepared, and answers each one's result. A statement
   * not prepared yet is prepared first, in a call that also runs the statements before it (as BEGIN and a SAVEPOINT
   * went along before), so one that fails to prepare fails after them, inside their transaction, as on PostgreSQL.
   * Values are serialized before the call that runs their statement: when one fails, that call is not made, and
   * `unsent` is told which statements never reached the engine. `sending` is called just before the last call.
   * The caller holds PGlite's query lock.
   */
  async function runInOrder(
    statements: Batched[],
    options: { unsent?: (statements: Batched[]) => void; sending?: () => void } = {},
  ): Promise<EngineResult[]> {
    const results: EngineResult[] = [];
    let pending = statements;
    const serialized = (upTo: number) => {
      try {
        return pending.slice(0, upTo).flatMap(messagesOf);
      } catch (error) {
        options.unsent?.(pending);
        throw error;
      }
    };
    for (;;) {
      const next = pending.findIndex((statement) => statement.params && !prepared.has(statement.sql));
      if (next < 0) break;
      const before = serialized(next);
      const sql = pending[next]!.sql;
      const name = prepared.size < MAX_NAMED_STATEMENTS ? `sr${generation}_${prepared.size}` : "";
      const answer = await call([...before, message.parse(name, sql), message.describeStatement(name), message.sync()]);
      prepared.set(sql, { name, parameterTypes: engine.parameterTypes(answer) });
      // (An answer without a result is given one empty result: only the statements run count.)
      results.push(...engine.results(answer).slice(0, next));
      pending = pending.slice(next);
    }
    const messages = serialized(pending.length);
    // An unnamed statement's types serve only the call just built (the next unnamed one replaces it).
    for (const { sql } of pending) if (prepared.get(sql)?.name === "") prepared.delete(sql);
    options.sending?.();
    if (messages.length > 0) results.push(...engine.results(await call(messages)));
    return results;
  }

  /** One statement on its own. The caller holds PGlite's query lock. */
  const run = async <Row>(sql: string, params: unknown[] = []): Promise<Row[]> => (await runInOrder([{ sql, params }]))[0]!.rows as Row[];

  /** A statement whose table changed shape since it was prepared: prepare every statement afresh. */
  const renamePlans = () => {
    generation++;
    prepared = new Map();
  };

  /** Simple statements in one engine call. */
  const simple = (...sqls: string[]) => db.runExclusive(() => call(sqls.map((sql) => message.query(sql))));

  /**
   * PGlite's own `transaction` makes two engine calls each for BEGIN and COMMIT. Here BEGIN, a SAVEPOINT and the
   * statements sent ahead go in the same engine call as the transaction's next statement (as the PostgreSQL adapter
   * puts them in the same socket write), and `queryThenCommit` takes the COMMIT along, so a transaction of n statements
   * makes n calls. BEGIN and SAVEPOINT cannot fail where they are sent other than in a transaction already aborted,
   * and then the statement after them fails too (the engine answers the first error).
   */
  const inOneTransaction = <T>(work: (tx: Transaction) => Promise<T>): Promise<T> =>
    engine.exclusiveTransaction(async () => {
      let ahead: AheadStatement[] = [{ sql: "BEGIN" }];
      let begun = false;
      /** queryThenCommit was called: nothing may follow. */
      let finished = false;
      /** Its COMMIT went to the engine: the transaction is over, whatever the last statement answered. */
      let commitSent = false;
      const stillOpen = () => {
        if (finished) throw new Error(AFTER_COMMIT_MESSAGE);
      };
      /**
       * The statements ahead, then `then`, in one engine call (after any call that prepares one of them); each
       * statement ahead is settled with its answer. Statements ahead that never reached the engine stay ahead.
       */
      const withAhead = (then: Batched[], sending?: () => void) =>
        db.runExclusive(async () => {
          const taken = ahead;
          const wasBegun = begun;
          ahead = [];
          begun = true;
          const unsent = (statements: Batched[]) => {
            ahead = [...taken.filter((statement) => statements.includes(statement)), ...ahead];
            if (!wasBegun && ahead[0] === taken[0]) begun = false;
          };
          let results: EngineResult[];
          try {
            results = await runInOrder([...taken, ...then], { unsent, sending });
          } catch (error) {
            for (const statement of taken) if (!ahead.includes(statement)) statement.settle?.reject(error);
            throw error;
          }
          taken.forEach((statement, i) => statement.settle?.resolve(results[i]!.rows));
          return results.slice(taken.length);
        });
      const tx: Transaction = {
        query: async <Row>(sql: string, params: unknown[] = []) => {
          stillOpen();
          return (await withAhead([{ sql, params }]))[0]!.rows as Row[];
        },
        queryAhead: <Row>(sql: string, params: unknown[] = []) => {
          stillOpen();
          const statement: AheadStatement = { sql, params };
          const rows = new Promise<Row[]>((resolve, reject) => (statement.settle = { resolve: resolve as never, reject }));
          rows.catch(() => undefined); // its error, if any, is its call's: whoever asks for the rows gets it
          ahead.push(statement);
          return () => (ahead.includes(statement) ? withAhead([]).then(() => rows) : rows);
        },
        queryThenCommit: async <Row>(sql: string, params: unknown[] = []) => {
          stillOpen();
          finished = true;
          const [last, commit] = await withAhead([{ sql, params }, { sql: "COMMIT" }], () => (commitSent = true));
          if (commit!.command === "ROLLBACK") throw new TransactionAborted();
          return last!.rows as Row[];
        },
        exec: async (sql) => {
          stillOpen();
          if (SAVEPOINT.test(sql)) ahead.push({ sql });
          else await withAhead([{ sql }]);
        },
      };
      let result: T;
      try {
        result = await work(tx);
      } catch (error) {
        // A last statement sent with its COMMIT ended the transaction, committed or (when it failed) rolled back.
        if (commitSent) await db.syncToFs();
        else if (begun) await simple("ROLLBACK");
        throw error;
      }
      if (!commitSent) {
        if (!begun && ahead.length === 1) return result; // no statement: nothing to begin or commit
        // COMMIT of a transaction a failed statement aborted answers ROLLBACK: nothing was written.
        const [commit] = await withAhead([{ sql: "COMMIT" }]);
        if (commit!.command === "ROLLBACK") throw new TransactionAborted();
      }
      await db.syncToFs();
      return result;
    });

  return {
    kind: "pglite",
    query: (sql, params) =>
      retried(
        () =>
          engine.exclusiveTransaction(() =>
            db.runExclusive(async () => {
              const rows = await run(sql, params);
              await db.syncToFs();
              return rows as never[];
            }),
          ),
        renamePlans,
      ),
    exec: async (sql) => void (await open().exec(sql)),
    transaction: (work) => retried(() => inOneTransaction(work), renamePlans),
    // No transaction is under way while the checkpoint runs and the files are read: the archive is one committed state.
    ...(options.snapshots
      ? {
          snapshot: () =>
            engine.exclusiveTransaction(async () => {
              await simple("CHECKPOINT");
              return archiveOf(db);
            }),
        }
      : {}),
    async close() {
      if (closed) return;
      closed = true;
      await closeEngine();
      releaseLock();
    },
  };
}
