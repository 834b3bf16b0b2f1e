import { parse, PGlite, protocol } from "@electric-sql/pglite";

/**
 * Every use of PGlite below its documented API, in this one file. Written against @electric-sql/pglite 0.5.16,
 * pinned exactly in package.json; test/store/internals.test.ts fails if an upgrade removes or reshapes any of it.
 *
 * - `_runExclusiveTransaction`: the mutex PGlite's own `query`, `exec` and `transaction` wait on. Holding it
 *   keeps every other caller out of a transaction driven through the wire protocol.
 * - `serializers` and `parsers`: the value codecs by type OID PGlite's own `query` uses.
 * - `parse.parseDescribeStatementResults`, `parse.parseResults` and `protocol.serialize`: the wire protocol
 *   messages of an extended-protocol statement (parse, describe, bind, execute, sync) and their answers.
 */
export const PGLITE_VERSION_WRITTEN_AGAINST = "0.5.16";

export type EngineMessages = Awaited<ReturnType<PGlite["execProtocolStream"]>>;

export interface PgliteEngine {
  /** Runs `work` holding PGlite's transaction mutex. */
  exclusiveTransaction<T>(work: () => Promise<T>): Promise<T>;
  /** The parameter value as PostgreSQL text, by the parameter's type OID (`String` for a type PGlite has no serializer for). */
  serialize(value: unknown, typeOid: number): string;
  /** The rows of a result in an answer (the first, or the `index`th), each value parsed by its column's type. */
  rows(messages: EngineMessages, index?: number): Record<string, unknown>[];
  /** The command tag of a result in an answer (the first, or the `index`th): "COMMIT", "ROLLBACK", "INSERT" ... */
  command(messages: EngineMessages, index?: number): string | undefined;
  /** The parameter type OIDs of a described prepared statement. */
  parameterTypes(messages: EngineMessages): number[];
  message: {
    parse(name: string, text: string): Uint8Array;
    describeStatement(name: string): Uint8Array;
    bind(statement: string, values: (string | null)[]): Uint8Array;
    describePortal(): Uint8Array;
    execute(): Uint8Array;
    sync(): Uint8Array;
    query(sql: string): Uint8Array;
  };
}

type Codecs = { serializers: Record<number, (value: unknown) => string>; parsers: Parameters<typeof parse.parseResults>[1] };

/** Fails at open, naming the version, when the installed PGlite lacks an internal this adapter relies on. */
export function pgliteEngine(db: PGlite): PgliteEngine {
  const codecs = db as unknown as Codecs;
  const missing = [
    typeof db._runExclusiveTransaction !== "function" && "PGlite#_runExclusiveTransaction",
    (typeof codecs.serializers !== "object" || typeof codecs.serializers[3802] !== "function") && "PGlite#serializers",
    (typeof codecs.parsers !== "object" || typeof codecs.parsers[1184] !== "function") && "PGlite#parsers",
    typeof parse?.parseResults !== "function" && "parse.parseResults",
    typeof parse?.parseDescribeStatementResults !== "function" && "parse.parseDescribeStatementResults",
    typeof protocol?.serialize?.bind !== "function" && "protocol.serialize",
  ].filter(Boolean);
  if (missing.length > 0) {
    throw new Error(
      `the installed @electric-sql/pglite lacks ${missing.join(", ")}; src/store/pglite-internals.ts was written against ${PGLITE_VERSION_WRITTEN_AGAINST}`,
    );
  }
  return {
    exclusiveTransaction: (work) => db._runExclusiveTransaction(work),
    serialize: (value, typeOid) => (codecs.serializers[typeOid] ?? String)(value),
    rows: (messages, index = 0) => (parse.parseResults(messages, codecs.parsers)[index]?.rows ?? []) as Record<string, unknown>[],
    command: (messages, index = 0) => parse.parseResults(messages, codecs.parsers)[index]?.command,
    parameterTypes: (messages) => parse.parseDescribeStatementResults(messages),
    message: {
      parse: (name, text) => protocol.serialize.parse({ name, text }),
      describeStatement: (name) => protocol.serialize.describe({ type: "S", name }),
      bind: (statement, values) => protocol.serialize.bind({ statement, values }),
      describePortal: () => protocol.serialize.describe({ type: "P" }),
      execute: () => protocol.serialize.execute({}),
      sync: () => protocol.serialize.sync(),
      query: (sql) => protocol.serialize.query(sql),
    },
  };
}
