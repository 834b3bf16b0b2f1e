import { setTimeout as sleep } from "node:timers/promises";

/**
 * The one storage interface every part of Strongroom talks to. Both adapters speak the same
 * PostgreSQL dialect: PGlite (embedded, WASM) and a PostgreSQL server through `pg`.
 */
export interface Queryable {
  /**
   * In a transaction (`tx`), statements issued before the previous one has answered run in the order issued, each
   * after the one before has finished (the PostgreSQL adapter writes them at once, sparing the wait for each answer):
   * a statement whose answer nothing needs, such as a lock, may go unawaited until the statement after it is issued.
   * Outside a transaction, statements issued together may run on different connections, in any order.
   */
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

/** The statements of one transaction (`Database.transaction`'s `tx`). */
export interface Transaction extends Queryable {
  /**
   * Runs the transaction's last statement and commits with it: the PostgreSQL adapter writes the statement and COMMIT
   * at once, sparing the wait for the statement's answer before the COMMIT leaves. Answers the statement's rows once
   * the transaction has committed. When the statement fails (as it does after a statement that failed unheeded), the
   * transaction is rolled back and the statement's error rejects. Either way the transaction has ended: a statement
   * issued after it is refused, and what `work` throws afterwards rolls nothing back.
   */
  queryThenCommit<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
}

/** Refuses a statement issued in a transaction that `queryThenCommit` has ended. */
export function transactionEnded(): never {
  throw new Error("the transaction has ended: queryThenCommit was its last statement");
}

export interface Database extends Queryable {
  readonly kind: "pglite" | "postgres";
  /**
   * Runs `work` inside one transaction: committed when it resolves, rolled back when it throws. Work that failed
   * on a serialization failure, a deadlock or a stale plan is rolled back and run again, whole (see `retried`);
   * work that resolved although a statement in it failed (and was not rolled back to a savepoint) is rolled
   * back and rejects with `TransactionAborted`. Inside `work`, use `tx` only: on PGlite the Database itself
   * waits for the transaction to end. test/store/contract.test.ts holds both adapters to this.
   */
  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
  /**
   * The embedded store in a data directory only: the whole store as a gzipped tar (what `strongroom backup` writes),
   * taken between two transactions after a checkpoint, while the server keeps running.
   */
  snapshot?(): Promise<Uint8Array>;
  close(): Promise<void>;
}

function sqlState(error: unknown): string | undefined {
  return typeof error === "object" && error !== null ? (error as { code?: string }).code : undefined;
}

/** True when a query failed on a unique constraint (SQLSTATE 23505). */
export function isUniqueViolation(error: unknown): boolean {
  return sqlState(error) === "23505";
}

/** A serialization failure or a deadlock: the transaction did nothing and is retried whole. */
export function isRetryableConflict(error: unknown): boolean {
  const code = sqlState(error);
  return code === "40001" || code === "40P01";
}

/**
 * A prepared statement whose tables changed shape since it was prepared (another process, or a
 * migration, altered them) fails with "cached plan must not change result type"; the adapters then
 * prepare every statement afresh and retry.
 */
export function isStalePlan(error: unknown): boolean {
  return sqlState(error) === "0A000" && /cached plan/.test((error as Error).message);
}

/** Work resolved although a statement in its transaction failed: COMMIT answered ROLLBACK and nothing was written. */
export class TransactionAborted extends Error {
  constructor() {
    super("the transaction was rolled back: a statement in it failed");
    this.name = "TransactionAborted";
  }
}

/** How many times a transaction (or a statement outside one) is run before its conflict or stale plan is the caller's. */
export const MAX_ATTEMPTS = 5;
const CONFLICT_BACKOFF_MS = 5;

/** The advisory lock processes starting on one PostgreSQL take turns with: to create the schema, and to migrate it. */
export const MIGRATION_LOCK = 7163453;

/** DATABASE_POOL_SIZE's default: the PostgreSQL connections a process holds at most. */
export const DEFAULT_POOL_SIZE = 10;

/**
 * Runs `attempt` until it succeeds, fails otherwise than on a conflict or a stale plan, or has run MAX_ATTEMPTS
 * times. Before the attempt after a stale plan, `renamePlans` has every statement prepared afresh. `mayRetry`
 * can refuse a retry the error alone would allow.
 *
 * The attempt after a conflict waits a random while first, longer each time: retried at once, a deadlock's
 * victim often takes a row back before the transaction it deadlocked with has woken up, and deadlocks again.
 */
export async function retried<T>(attempt: () => Promise<T>, renamePlans: () => void, mayRetry: () => boolean = () => true): Promise<T> {
  for (let attempts = 1; ; attempts++) {
    try {
      return await attempt();
    } catch (error) {
      const stale = isStalePlan(error);
      if (attempts >= MAX_ATTEMPTS || !(stale || isRetryableConflict(error)) || !mayRetry()) throw error;
      if (stale) renamePlans();
      else await sleep((1 + Math.random()) * CONFLICT_BACKOFF_MS * 2 ** (attempts - 1));
    }
  }
}

/** Node's errors for a connection that could not be made or was lost. */
const CONNECTION_ERRORS = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);
/**
 * SQLSTATEs of a server that cannot serve now: shutting down (57P01, 57P02), starting or recovering (57P03), a
 * standby (25006: read-only, as the old primary's address answers after a failover); class 08, connection
 * exceptions.
 */
const UNAVAILABLE_STATES = new Set(["57P01", "57P02", "57P03", "25006"]);

/** Whether an error says the database cannot be reached or cannot serve now, rather than anything about the work. */
export function isConnectionFailure(error: unknown): boolean {
  const code = sqlState(error);
  // (An ApiError thrown through a transaction has a numeric code.)
  if (typeof code === "string" && (CONNECTION_ERRORS.has(code) || UNAVAILABLE_STATES.has(code) || code.startsWith("08"))) return true;
  return (
    error instanceof Error &&
    /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection is closed)/.test(
      error.message,
    )
  );
}

/**
 * The database could not be reached or could not serve (see isConnectionFailure): the API answers 503
 * UNAVAILABLE, and the same request may be sent again once it is back (a body sent again answers its activity).
 */
export class DatabaseUnavailable extends Error {
  constructor(cause: unknown) {
    super(`the database is unavailable (${cause instanceof Error ? cause.message : String(cause)})`, { cause });
    this.name = "DatabaseUnavailable";
  }
}

/** Rethrows a connection failure as DatabaseUnavailable, anything else as it is. */
export function asUnavailable(error: unknown): never {
  throw isConnectionFailure(error) ? new DatabaseUnavailable(error) : error;
}
