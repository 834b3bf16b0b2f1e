import { parse, PGlite, protocol } from "@electric-sql/pglite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { isStalePlan, type Database, type Queryable } from "./database.js";
import { acquireDataDirLock } from "./data-dir-lock.js";

/** Statement texts are fixed in the code; the cap only guards against one built from input. */
const MAX_NAMED_STATEMENTS = 2000;

interface Prepared {
  name: string;
  parameterTypes: number[];
}

/** What PGlite keeps on the instance and uses in its own `query`: value serializers and parsers by type OID. */
type Codecs = { serializers: Record<number, (value: unknown) => string>; parsers: Parameters<typeof parse.parseResults>[1] };

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/**
 * The embedded store: PostgreSQL compiled to WASM, persisted under `<dataDir>/pgdata`.
 * PGlite is single-connection, so only one process may open a data directory; a lock file
 * enforces that before PGlite touches the files. `dataDir` "memory://" gives a throwaway store.
 *
 * Statements run as named prepared statements: PGlite's own `query` parses and plans every statement
 * each time and makes six calls into the WASM engine per statement; here a statement is parsed and
 * described once, and each run is one call (bind, describe, execute, sync) — about five times faster
 * for the statements Strongroom runs.
 */
export async function openPglite(dataDir: string): Promise<Database> {
  let releaseLock = () => {};
  let db: PGlite;
  if (dataDir.startsWith("memory://")) {
    db = await PGlite.create();
  } else {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    releaseLock = acquireDataDirLock(dataDir);
    try {
      db = await PGlite.create(join(dataDir, "pgdata"));
    } catch (error) {
      releaseLock();
      throw error;
    }
  }
  const codecs = db as unknown as Codecs;
  let prepared = new Map<string, Prepared>();
  let generation = 0;

  const call = (messages: Uint8Array[]) => db.execProtocolStream(concat(messages), { syncToFs: false });

  async function prepare(sql: string): Promise<Prepared> {
    const known = prepared.get(sql);
    if (known) return known;
    const name = prepared.size < MAX_NAMED_STATEMENTS ? `sr${generation}_${prepared.size}` : "";
    const described = await call([
      protocol.serialize.parse({ name, text: sql }),
      protocol.serialize.describe({ type: "S", name }),
      protocol.serialize.sync(),
    ]);
    const statement = { name, parameterTypes: parse.parseDescribeStatementResults(described) };
    if (name) prepared.set(sql, statement);
    return statement;
  }

  /** Runs one statement; the caller holds PGlite's query lock. */
  async function run<Row>(sql: string, params: unknown[] = []): Promise<Row[]> {
    const { name, parameterTypes } = await prepare(sql);
    const values = params.map((value, i) =>
      value === null || value === undefined ? null : (codecs.serializers[parameterTypes[i]!] ?? String)(value),
    );
    const messages = await call([
      protocol.serialize.bind({ statement: name, values }),
      protocol.serialize.describe({ type: "P" }),
      protocol.serialize.execute({}),
      protocol.serialize.sync(),
    ]);
    return (parse.parseResults(messages, codecs.parsers)[0]?.rows ?? []) as Row[];
  }

  /** A statement whose table changed shape since it was prepared: prepare every statement afresh. */
  const renamePlans = () => {
    generation++;
    prepared = new Map();
  };

  const simple = (sql: string) => db.runExclusive(() => call([protocol.serialize.query(sql)]));
  const inTransaction: Queryable = {
    query: (sql, params) => db.runExclusive(() => run(sql, params)),
    exec: async (sql) => void (await simple(sql)),
  };

  /** PGlite's own `transaction` makes two engine calls each for BEGIN and COMMIT; these make one. */
  const inOneTransaction = <T>(work: (tx: Queryable) => Promise<T>): Promise<T> =>
    db._runExclusiveTransaction(async () => {
      await simple("BEGIN");
      let result: T;
      try {
        result = await work(inTransaction);
      } catch (error) {
        await simple("ROLLBACK");
        throw error;
      }
      const [committed] = parse.parseResults(await simple("COMMIT"), codecs.parsers);
      // COMMIT of a transaction a failed statement aborted answers ROLLBACK: nothing was written.
      if (committed?.command === "ROLLBACK") throw new Error("the transaction was rolled back: a statement in it failed");
      await db.syncToFs();
      return result;
    });

  return {
    kind: "pglite",
    async query(sql, params) {
      const once = () =>
        db._runExclusiveTransaction(() =>
          db.runExclusive(async () => {
            const rows = await run(sql, params);
            await db.syncToFs();
            return rows;
          }),
        );
      try {
        return (await once()) as never[];
      } catch (error) {
        if (!isStalePlan(error)) throw error;
        renamePlans();
        return (await once()) as never[];
      }
    },
    exec: async (sql) => void (await db.exec(sql)),
    async transaction(work) {
      try {
        return await inOneTransaction(work);
      } catch (error) {
        if (!isStalePlan(error)) throw error;
        renamePlans();
        return inOneTransaction(work);
      }
    },
    async close() {
      await db.close();
      releaseLock();
    },
  };
}
