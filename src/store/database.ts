/**
 * The one storage interface every part of Strongroom talks to. Both adapters speak the same
 * PostgreSQL dialect: PGlite (embedded, WASM) and a PostgreSQL server through `pg`.
 */
export interface Queryable {
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Database extends Queryable {
  readonly kind: "pglite" | "postgres";
  /** Runs `work` inside one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
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
