import { PGlite, types, type PGliteOptions } from "@electric-sql/pglite";
import { existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { setImmediate as eventLoopTurn } from "node:timers/promises";
import { retried, TransactionAborted, transactionEnded, type Database, type Transaction } from "./database.js";
import { acquireDataDirLock } from "./data-dir-lock.js";
import { createPglite, startCompilingEngine } from "./pglite-create.js";
import { migrate } from "./migrations.js";
import { archiveOf } from "./pglite-backup.js";
import { pgliteEngine, type PgliteEngine } from "./pglite-internals.js";
import { noteFreshEngine, releaseEngine, takeSpareEngine } from "./pglite-spare-engine.js";
import { migratedTemplate } from "./pglite-template.js";
import { PROCESS_SESSION_NAME } from "./process-session.js";
import { unpackDataDir } from "./unpack-data-dir.js";

/** A statement whose answer carries nothing: it may go with the next one (see `inOneTransaction`). */
const SAVEPOINT = /^SAVEPOINT [a-z_]+$/;

/**
 * The longest run of engine work before the event loop gets a turn. PGlite's engine runs synchronously and its answers
 * resolve as promises, so under load one request's statements after another's can all run in a single drain of the
 * microtask queue, and the event loop's I/O (accepting connections, reading requests, writing answers) waits for it
 * to end: at 50 connections a drain took 30–100 ms, and a burst of new connections was accepted one per drain, its
 * last requests answered only when the load ended (bench/README.md, "Fairness under load on the embedded store").
 */
const ENGINE_TURN_MS = 2;

/** Statement texts are fixed in the code; the cap only guards against one built from input. */
const MAX_NAMED_STATEMENTS = 2000;

interface Prepared {
  name: string;
  parameterTypes: number[];
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
export const DEFAULT_PGLITE_SHARED_BUFFERS = "8MB";

/** PostgreSQL settings as its command line gives them: `-c name=value` each. */
const commandLineSettings = (values: Record<string, string>) =>
  Object.entries(values).flatMap(([name, value]) => ["-c", `${name}=${value}`]);

/** The engine's max_connections (see startOptions). */
const MAX_CONNECTIONS = 10;

/**
 * PGlite's start parameters. In the WASM engine PostgreSQL's shared memory is ordinary memory the process keeps
 * resident, all of it from the start: its buffer pool is 8 MB rather than PostgreSQL's 128 MB, since an embedded store's
 * working set is small and what misses the pool is read from the OS page cache (bench/README.md, "The embedded engine's
 * shared memory": 16 MB measured no faster, also on a store of 100,000 activities). And the engine is a single backend,
 * while PostgreSQL sizes its process slots and lock table for max_connections: 10 instead of 100 keeps 4 MB less
 * resident, and its lock table still holds several times the locks a transaction can take on every relation of the
 * schema (test/store/pglite-settings.test.ts).
 */
function startOptions(sharedBuffers: string): Pick<PGliteOptions, "startParams"> {
  if (!/^\d+(kB|MB|GB)$/.test(sharedBuffers)) {
    throw new Error(`PGLITE_SHARED_BUFFERS ${JSON.stringify(sharedBuffers)} must be a size such as 8MB (kB, MB or GB)`);
  }
  // log_startup_progress_interval: an engine started from existing files (a data directory, the template) otherwise keeps
  // PostgreSQL's start-up progress timer firing every 10 seconds for its whole life, which keeps an idle process alive.
  return {
    startParams: [
      ...PGlite.defaultStartParams,
      ...commandLineSettings({
        shared_buffers: sharedBuffers,
        log_startup_progress_interval: "0",
        max_connections: String(MAX_CONNECTIONS),
      }),
    ],
  };
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
  startCompilingEngine();
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
  let turnStartedAt = performance.now();
  const call = async (messages: Uint8Array[]) => {
    if (performance.now() - turnStartedAt > ENGINE_TURN_MS) {
      await eventLoopTurn();
      turnStartedAt = performance.now();
    }
    return open().execProtocolStream(concat(messages), { syncToFs: false });
  };

  /** The statement prepared, after the simple statements `ahead` in the same engine call. */
  async function prepare(sql: string, ahead: string[]): Promise<Prepared> {
    const name = prepared.size < MAX_NAMED_STATEMENTS ? `sr${generation}_${prepared.size}` : "";
    const described = await call([
      ...ahead.map((statement) => message.query(statement)),
      message.parse(name, sql),
      message.describeStatement(name),
      message.sync(),
    ]);
    const statement = { name, parameterTypes: engine.parameterTypes(described) };
    if (name) prepared.set(sql, statement);
    return statement;
  }

  /**
   * Runs one statement, after the simple statements `takeAhead` answers (BEGIN, SAVEPOINT) in the same engine call —
   * the call that prepares it, the first time. They are taken just before a call, so none is lost when a value fails to
   * serialize. The caller holds PGlite's query lock.
   */
  async function run<Row>(sql: string, params: unknown[] = [], takeAhead: () => string[] = () => []): Promise<Row[]> {
    const { name, parameterTypes } = prepared.get(sql) ?? (await prepare(sql, takeAhead()));
    const values = params.map((value, i) => (value === null || value === undefined ? null : engine.serialize(value, parameterTypes[i]!)));
    const ahead = takeAhead();
    const answer = await call([
      ...ahead.map((statement) => message.query(statement)),
      message.bind(name, values),
      message.describePortal(),
      message.execute(),
      message.sync(),
    ]);
    return engine.rows(answer, ahead.length) as Row[];
  }

  /** A statement whose table changed shape since it was prepared: prepare every statement afresh. */
  const renamePlans = () => {
    generation++;
    prepared = new Map();
  };

  /** Simple statements in one engine call. */
  const simple = (...sqls: string[]) => db.runExclusive(() => call(sqls.map((sql) => message.query(sql))));

  /**
   * PGlite's own `transaction` makes two engine calls each for BEGIN and COMMIT. Here BEGIN, and a SAVEPOINT, go in
   * the same engine call as the transaction's next statement (as the PostgreSQL adapter puts them in the same socket
   * write), so a transaction of n statements makes n + 1 calls. Neither can fail where it is sent other than in a
   * transaction already aborted, and then the statement after it fails too (the engine answers the first error).
   */
  const inOneTransaction = <T>(work: (tx: Transaction) => Promise<T>): Promise<T> =>
    engine.exclusiveTransaction(async () => {
      let ahead = ["BEGIN"];
      let begun = false;
      let ended = false;
      const takeAhead = () => {
        if (ended) transactionEnded();
        const taken = ahead;
        ahead = [];
        begun = true;
        return taken;
      };
      const commit = async () => {
        const statements = [...takeAhead(), "COMMIT"];
        ended = true;
        // COMMIT of a transaction a failed statement aborted answers ROLLBACK: nothing was written.
        if (engine.command(await simple(...statements), statements.length - 1) === "ROLLBACK") throw new TransactionAborted();
        await db.syncToFs();
      };
      const tx: Transaction = {
        query: (sql, params) => db.runExclusive(() => run(sql, params, takeAhead)),
        exec: async (sql) => {
          if (ended) transactionEnded();
          if (SAVEPOINT.test(sql)) ahead.push(sql);
          else await simple(...takeAhead(), sql);
        },
        // Here a round trip is a function call: the statement and the COMMIT are two engine calls.
        async queryThenCommit<Row>(sql: string, params?: unknown[]) {
          if (ended) transactionEnded();
          const rows = await tx.query<Row>(sql, params).catch(async (error: unknown) => {
            ended = true;
            await simple("ROLLBACK");
            throw error;
          });
          await commit();
          return rows;
        },
      };
      let result: T;
      try {
        result = await work(tx);
      } catch (error) {
        if (begun && !ended) await simple("ROLLBACK");
        throw error;
      }
      if (ended || (!begun && ahead.length === 1)) return result; // ended by queryThenCommit, or no statement to begin or commit
      await commit();
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
