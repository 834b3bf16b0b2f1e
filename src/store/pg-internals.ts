import pg from "pg";

/**
 * Every use of `pg` below its documented API, in this one file. Written against pg 8.23.1, pinned exactly in
 * package.json; test/store/internals.test.ts fails if an upgrade removes or reshapes any of it.
 *
 * - `client.connection.stream`: the socket under a client. Corking it around several queries makes them leave
 *   in one write (pipeline mode writes each query as soon as it is issued).
 * - `pg.utils.prepareValue`: how pg turns a parameter into what it sends. A value it cannot turn fails the query
 *   after it was queued, and pipeline mode still sends the queries behind it.
 */
export const PG_VERSION_WRITTEN_AGAINST = "8.23.1";

type Corkable = { cork(): void; uncork(): void };

function socketOf(client: pg.PoolClient | pg.Client): Corkable {
  const stream = (client as unknown as { connection?: { stream?: Partial<Corkable> } }).connection?.stream;
  if (typeof stream?.cork !== "function" || typeof stream.uncork !== "function") {
    throw new Error(
      `the installed pg lacks Client#connection.stream; src/store/pg-internals.ts was written against ${PG_VERSION_WRITTEN_AGAINST}`,
    );
  }
  return stream as Corkable;
}

/** Runs `issue` (which issues queries on `client` without awaiting them) so that what it writes leaves in one socket write. */
export function inOneWrite<T>(client: pg.PoolClient | pg.Client, issue: () => T): T {
  const socket = socketOf(client);
  socket.cork();
  try {
    return issue();
  } finally {
    socket.uncork();
  }
}

type PrepareValue = (value: unknown) => unknown;

/**
 * The parameters as pg sends them (text, a Buffer or null), or an error for the first it cannot send: checked before a
 * statement is issued ahead of others that must not go without it (a COMMIT behind the transaction's last statement).
 */
export function preparedValues(values: unknown[]): unknown[] {
  const prepareValue = (pg as unknown as { utils?: { prepareValue?: PrepareValue } }).utils?.prepareValue;
  if (typeof prepareValue !== "function") {
    throw new Error(
      `the installed pg lacks pg.utils.prepareValue; src/store/pg-internals.ts was written against ${PG_VERSION_WRITTEN_AGAINST}`,
    );
  }
  return values.map((value) => prepareValue(value));
}
