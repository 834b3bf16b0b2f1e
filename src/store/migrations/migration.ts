/** One versioned schema change: its SQL runs once, in a transaction, on PGlite and PostgreSQL alike. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
