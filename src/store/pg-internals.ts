import type pg from "pg";

/**
 * Every use of `pg` below its documented API, in this one file. Written against pg 8.23.1, pinned exactly in
 * package.json; test/store/internals.test.ts fails if an upgrade removes or reshapes any of it.
 *
 * - `client.connection.stream`: the socket under a client. Corking it around several queries makes them leave
 *   in one write (pipeline mode writes each query as soon as it is issued).
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
