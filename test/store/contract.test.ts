import { freshPostgresDatabase } from "../helpers/postgres-database.js";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  isRetryableConflict,
  isStalePlan,
  isUniqueViolation,
  MAX_ATTEMPTS,
  TransactionAborted,
  type Database,
  type Queryable,
} from "../../src/store/database.js";
import { openPglite } from "../../src/store/pglite.js";
import { readAlongside } from "../../src/store/read-alongside.js";
import { openPostgres } from "../../src/store/postgres.js";

/**
 * One contract, held against both stores: the suite below is defined once and run on PGlite (always) and on
 * PostgreSQL (with DATABASE_URL, in a fresh database of its own, dropped afterwards, as test/helpers/server.ts does).
 * Where the two differ by nature — PGlite is one connection, so one transaction at a time — the case says what
 * each promises.
 */
interface StoreUnderTest {
  name: string;
  /** Two transactions can be open at once (PostgreSQL); otherwise one waits for the other to end (PGlite). */
  concurrent: boolean;
  /** How many connections the store holds at most (PGlite: its one; PostgreSQL: the pool opened below). */
  connections: number;
  skip?: boolean;
  open(): Promise<{ db: Database; close(): Promise<void> }>;
}

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Resolves for everyone once `parties` have arrived. */
function barrier(parties: number) {
  let arrived = 0;
  const all = deferred();
  return {
    arrive() {
      if (++arrived === parties) all.resolve();
      return all.promise;
    },
  };
}

/** Fails the test instead of hanging it when `promise` waits where it should not. */
function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  return Promise.race([promise, sleep(ms).then(() => Promise.reject(new Error(`${what} did not finish within ${ms} ms`)))]);
}

/**
 * PostgreSQL only: waits until `sessions` other sessions on this database are blocked on a lock (of `kind`, as
 * pg_stat_activity names it, e.g. "advisory"; any kind if omitted), read through `q`, a transaction's own connection.
 */
async function untilBlockedOnLock(q: Queryable, sessions: number, kind?: string): Promise<void> {
  await vi.waitFor(
    async () => {
      await q.query("SELECT pg_stat_clear_snapshot()"); // a transaction otherwise keeps reading its first snapshot of the view
      const [{ n }] = (await q.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock' AND ($1::text IS NULL OR wait_event = $1)`,
        [kind ?? null],
      )) as [{ n: number }];
      expect(n, `sessions blocked on a lock${kind ? ` (${kind})` : ""}`).toBeGreaterThanOrEqual(sessions);
    },
    { timeout: 10_000, interval: 5 },
  );
}

/** Raises a real error with the given SQLSTATE from inside the engine. */
const raise = (tx: Queryable, sqlState: string) =>
  tx.exec(`DO $$ BEGIN RAISE EXCEPTION 'provoked by the contract test' USING ERRCODE = '${sqlState}'; END $$`);

const sqlState = (error: unknown) => (error as { code?: string }).code;

function storeContract(store: StoreUnderTest) {
  describe.skipIf(store.skip)(`the store contract on ${store.name}`, () => {
    let db: Database;
    let close: () => Promise<void>;
    let tables = 0;
    /** A table of the test's own, so that cases never see one another's rows. */
    const table = async (columns: string, rows?: string) => {
      const name = `contract_${++tables}`;
      await db.exec(`CREATE TABLE ${name} (${columns})${rows ? `; INSERT INTO ${name} VALUES ${rows}` : ""}`);
      return name;
    };
    const count = async (name: string) => (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${name}`))[0]!.n;

    beforeAll(async () => {
      ({ db, close } = await store.open());
    });
    afterAll(async () => {
      await close?.();
    });

    describe("commit and rollback", () => {
      it("commits the work's writes when it resolves, and returns its result", async () => {
        const t = await table("id int PRIMARY KEY");
        const result = await db.transaction(async (tx) => {
          await tx.query(`INSERT INTO ${t} VALUES ($1)`, [1]);
          await tx.query(`INSERT INTO ${t} VALUES ($1)`, [2]);
          return (await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${t}`))[0]!.n;
        });
        expect(result).toBe(2);
        expect(await count(t)).toBe(2);
      });

      it("rolls back every write when the work throws, and rethrows the very error", async () => {
        const t = await table("id int PRIMARY KEY");
        const thrown = new Error("the work gave up");
        const work = db.transaction(async (tx) => {
          await tx.query(`INSERT INTO ${t} VALUES (1)`);
          await tx.exec(`INSERT INTO ${t} VALUES (2); INSERT INTO ${t} VALUES (3)`);
          throw thrown;
        });
        await expect(work).rejects.toBe(thrown);
        expect(await count(t)).toBe(0);
      });

      it("runs work that issues no statement at all", async () => {
        expect(await db.transaction(async () => "nothing to do")).toBe("nothing to do");
      });

      it("statements issued before the previous one answered run in the order issued, each seeing the ones before", async () => {
        const t = await table("id int PRIMARY KEY");
        const [, , seen] = await db.transaction((tx) =>
          Promise.all([
            tx.query(`INSERT INTO ${t} VALUES ($1)`, [1]),
            tx.query(`INSERT INTO ${t} SELECT count(*)::int + 1 FROM ${t}`),
            tx.query<{ ids: number[] }>(`SELECT array_agg(id ORDER BY id) AS ids FROM ${t}`),
          ]),
        );
        expect(seen[0]!.ids).toEqual([1, 2]);
        // A failed one fails every one after it, and the transaction writes nothing.
        const failed = db.transaction((tx) =>
          Promise.all([
            tx.query(`INSERT INTO ${t} VALUES ($1)`, [3]),
            tx.query(`INSERT INTO ${t} VALUES ($1)`, [1]),
            tx.query(`INSERT INTO ${t} VALUES ($1)`, [4]),
          ]),
        );
        await expect(failed).rejects.toMatchObject({ code: "23505" });
        expect(await count(t)).toBe(2);
      });

      it("commits a statement outside a transaction on its own, and a script of several with exec", async () => {
        const t = await table("id int PRIMARY KEY");
        await db.query(`INSERT INTO ${t} VALUES ($1)`, [1]);
        await db.exec(`INSERT INTO ${t} VALUES (2); INSERT INTO ${t} VALUES (3)`);
        expect(await count(t)).toBe(3);
      });
    });

    describe("an aborted transaction", () => {
      it("a failed statement carries its SQLSTATE, and every statement after it fails until the rollback", async () => {
        const t = await table("id int PRIMARY KEY", "(1)");
        const seen: string[] = [];
        const work = db.transaction(async (tx) => {
          await tx.query(`INSERT INTO ${t} VALUES (2)`);
          const duplicate = await tx.query(`INSERT INTO ${t} VALUES (1)`).catch((error: unknown) => error);
          expect(isUniqueViolation(duplicate)).toBe(true);
          seen.push(sqlState(duplicate)!);
          const next = await tx.query("SELECT 1").catch((error: unknown) => error);
          seen.push(sqlState(next)!);
          throw next;
        });
        await expect(work).rejects.toMatchObject({ code: "25P02" });
        expect(seen).toEqual(["23505", "25P02"]);
        expect(await count(t)).toBe(1);
      });

      it("work that swallows a failed statement and resolves is rolled back and rejects: nothing was written", async () => {
        const t = await table("id int PRIMARY KEY", "(1)");
        const work = db.transaction(async (tx) => {
          await tx.query(`INSERT INTO ${t} VALUES (2)`);
          await tx.query(`INSERT INTO ${t} VALUES (1)`).catch(() => undefined);
          return "looks fine";
        });
        await expect(work).rejects.toBeInstanceOf(TransactionAborted);
        expect(await count(t)).toBe(1);
        // The store is usable afterwards.
        expect(await db.transaction((tx) => tx.query<{ one: number }>("SELECT 1 AS one"))).toEqual([{ one: 1 }]);
      });

      it("a rollback to a savepoint recovers: the writes before and after it commit, the failed one does not", async () => {
        const t = await table("id int PRIMARY KEY", "(1)");
        await db.transaction(async (tx) => {
          await tx.query(`INSERT INTO ${t} VALUES (2)`);
          await tx.exec("SAVEPOINT attempt");
          await expect(tx.query(`INSERT INTO ${t} VALUES (1)`)).rejects.toMatchObject({ code: "23505" });
          await tx.exec("ROLLBACK TO SAVEPOINT attempt");
          await tx.query(`INSERT INTO ${t} VALUES (3)`);
        });
        expect((await db.query<{ id: number }>(`SELECT id FROM ${t} ORDER BY id`)).map((r) => r.id)).toEqual([1, 2, 3]);
      });

      // BEGIN and SAVEPOINT go out with the next statement (in one engine call, or one socket write): a statement that
      // fails before it runs must not leave them unsent, or what follows would run outside the transaction.
      it("a first statement that fails to prepare still began the transaction: what follows fails until the rollback", async () => {
        const t = await table("id int PRIMARY KEY");
        const work = db.transaction(async (tx) => {
          await expect(tx.query("SELEC 1")).rejects.toMatchObject({ code: "42601" });
          await tx.query(`INSERT INTO ${t} VALUES (1)`);
        });
        await expect(work).rejects.toMatchObject({ code: "25P02" });
        expect(await count(t)).toBe(0);
      });

      it("a first statement whose parameter fails to serialize leaves the transaction whole: the writes after it roll back", async () => {
        const t = await table("id int PRIMARY KEY");
        const thrown = new Error("the work gave up");
        const work = db.transaction(async (tx) => {
          await expect(tx.query("SELECT $1::jsonb AS value", [[1, 2]])).rejects.toThrow();
          await tx.query(`INSERT INTO ${t} VALUES (1)`).catch(() => undefined);
          throw thrown;
        });
        await expect(work).rejects.toBe(thrown);
        expect(await count(t)).toBe(0);
      });

      it("a rollback to a savepoint recovers from a statement that failed to prepare right after it", async () => {
        const t = await table("id int PRIMARY KEY");
        await db.transaction(async (tx) => {
          await tx.query(`INSERT INTO ${t} VALUES (1)`);
          await tx.exec("SAVEPOINT handler");
          await expect(tx.query("SELEC 1")).rejects.toMatchObject({ code: "42601" });
          await tx.exec("ROLLBACK TO SAVEPOINT handler");
          await tx.query(`INSERT INTO ${t} VALUES (2)`);
        });
        expect((await db.query<{ id: number }>(`SELECT id FROM ${t} ORDER BY id`)).map((r) => r.id)).toEqual([1, 2]);
      });

      it("a savepoint first, or last, or rolled back to before any other statement, behaves as if written at once", async () => {
        const t = await table("id int PRIMARY KEY");
        await db.transaction(async (tx) => {
          await tx.exec("SAVEPOINT first");
          await tx.query(`INSERT INTO ${t} VALUES (1)`);
          await tx.exec("SAVEPOINT last");
        });
        await db.transaction(async (tx) => {
          await tx.exec("SAVEPOINT handler");
          await tx.exec("ROLLBACK TO SAVEPOINT handler");
          await tx.query(`INSERT INTO ${t} VALUES (2)`);
          await tx.exec("SAVEPOINT handler");
          await tx.query(`INSERT INTO ${t} VALUES (3)`);
          await tx.exec("ROLLBACK TO SAVEPOINT handler");
        });
        await db.transaction((tx) => tx.exec("SAVEPOINT alone"));
        await expect(
          db.transaction(async (tx) => {
            await tx.exec("SAVEPOINT handler");
            await tx.exec("RELEASE SAVEPOINT missing");
          }),
        ).rejects.toMatchObject({ code: "3B001" });
        expect((await db.query<{ id: number }>(`SELECT id FROM ${t} ORDER BY id`)).map((r) => r.id)).toEqual([1, 2]);
      });

      it("a SET LOCAL holds for the rest of its transaction only, first or before queryThenCommit", async () => {
        const setting = (q: Queryable) => q.query<{ value: string }>("SELECT current_setting('synchronous_commit') AS value");
        const [[inside], [last]] = await db.transaction(async (tx) => {
          await tx.exec("SET LOCAL synchronous_commit = off");
          return Promise.all([setting(tx), tx.queryThenCommit<{ value: string }>("SELECT current_setting('synchronous_commit') AS value")]);
        });
        expect([inside!.value, last!.value]).toEqual(["off", "off"]);
        expect((await db.transaction((tx) => setting(tx)))[0]!.value).toBe("on");
        await expect(db.transaction((tx) => tx.exec("SET LOCAL synchronous_commit = nonsense"))).rejects.toMatchObject({ code: "22023" });
      });
    });

    describe("a read alongside the first statement (readAlongside)", () => {
      it.runIf(!store.concurrent)("reads nothing ahead on PGlite, where a statement costs no round trip", async () => {
        const t = await table("id int PRIMARY KEY, name text", "(1, 'one'), (2, 'two')");
        const reading = readAlongside(db, { sql: `SELECT name FROM ${t} WHERE id = $1`, params: [2] });
        expect(await reading.db.query<{ name: string }>(`SELECT name FROM ${t} WHERE id = $1`, [1])).toEqual([{ name: "one" }]);
        expect(reading.read()).toBeUndefined();
      });

      it.runIf(store.concurrent)(
        "answers the first statement's rows, reads the other with it, and passes every later statement through",
        async () => {
          const t = await table("id int PRIMARY KEY, name text", "(1, 'one'), (2, 'two')");
          const reading = readAlongside(db, { sql: `SELECT name, now() AS at FROM ${t} WHERE id = $1`, params: [2] });
          expect(reading.read()).toBeUndefined();
          const [first] = await reading.db.query<{ name: string; at: Date }>(`SELECT name, now() AS at FROM ${t} WHERE id = $1`, [1]);
          expect(first!.name).toBe("one");
          const read = reading.read()!;
          expect(read.rows.map((r) => r.name)).toEqual(["two"]);
          expect(read.statement.params).toEqual([2]);
          // One transaction, whose start time both statements read.
          expect((read.rows[0]!.at as Date).getTime()).toBe(first!.at.getTime());
          await reading.db.query(`INSERT INTO ${t} VALUES (3, 'three')`);
          expect(await count(t)).toBe(3);
          expect(reading.read()!.rows.map((r) => r.name)).toEqual(["two"]);
        },
      );

      it("a failing read leaves the first statement's answer standing, and nothing read", async () => {
        const t = await table("id int PRIMARY KEY", "(1)");
        const reading = readAlongside(db, { sql: "SELECT 1 / $1::int AS n", params: [0] });
        expect(await reading.db.query<{ id: number }>(`SELECT id FROM ${t}`)).toEqual([{ id: 1 }]);
        expect(reading.read()).toBeUndefined();
        const failing = readAlongside(db, { sql: "SELECT 1 AS n", params: [] });
        await expect(failing.db.query("SELECT 1 / 0")).rejects.toMatchObject({ code: "22012" });
        expect(failing.read()).toBeUndefined();
      });
    });

    describe("the last statement with its COMMIT (queryThenCommit)", () => {
      it("commits the transaction with it and answers its rows: as its first statement, and after others and a savepoint", async () => {
        const t = await table("id int PRIMARY KEY");
        expect(await db.transaction((tx) => tx.queryThenCommit<{ id: number }>(`INSERT INTO ${t} VALUES ($1) RETURNING id`, [1]))).toEqual([
          { id: 1 },
        ]);
        const answered = await db.transaction(async (tx) => {
          await tx.query(`INSERT INTO ${t} VALUES ($1)`, [2]);
          await tx.exec("SAVEPOINT handler");
          return tx.queryThenCommit<{ n: number }>(
            `WITH added AS (INSERT INTO ${t} VALUES (3) RETURNING id) SELECT count(*)::int AS n FROM ${t}`,
          );
        });
        expect(answered).toEqual([{ n: 2 }]);
        expect((await db.query<{ id: number }>(`SELECT id FROM ${t} ORDER BY id`)).map((r) => r.id)).toEqual([1, 2, 3]);
      });

      it("a failing statement rolls the whole transaction back and rejects with its error; work that catches it resolves, having written nothing", async () => {
        const t = await table("id int PRIMARY KEY", "(1)");
        const work = db.transaction(async (tx) => {
          await tx.query(`INSERT INTO ${t} VALUES (2)`);
          await tx.queryThenCommit(`INSERT INTO ${t} VALUES ($1)`, [1]);
        });
        await expect(work).rejects.toMatchObject({ code: "23505" });
        const caught = await db.transaction(async (tx) => {
          await tx.query(`INSERT INTO ${t} VALUES (3)`);
          return tx.queryThenCommit(`INSERT INTO ${t} VALUES (1)`).catch((error: unknown) => sqlState(error));
        });
        expect(caught).toBe("23505");
        expect(await count(t)).toBe(1);
        expect(await db.transaction((tx) => tx.queryThenCommit<{ one: number }>("SELECT 1 AS one"))).toEqual([{ one: 1 }]);
      });

      it("after a statement that failed unheeded, it fails too and nothing is written", async () => {
        const t = await table("id int PRIMARY KEY", "(1)");
        const work = db.transaction(async (tx) => {
          await tx.query(`INSERT INTO ${t} VALUES (1)`).catch(() => undefined);
          return tx.queryThenCommit(`INSERT INTO ${t} VALUES (2)`).catch((error: unknown) => error);
        });
        // The statement itself fails in the aborted transaction (25P02), which is what rejects.
        await expect(work).resolves.toMatchObject({ code: "25P02" });
        expect(await count(t)).toBe(1);
      });

      it("ends the transaction: a statement after it is refused, and a throw after it rolls nothing back", async () => {
        const t = await table("id int PRIMARY KEY");
        const refused = db.transaction(async (tx) => {
          await tx.queryThenCommit(`INSERT INTO ${t} VALUES (1)`);
          await tx.query(`INSERT INTO ${t} VALUES (2)`);
        });
        await expect(refused).rejects.toThrow(/the transaction has ended/);
        const thrown = new Error("too late to roll back");
        const late = db.transaction(async (tx) => {
          await tx.queryThenCommit(`INSERT INTO ${t} VALUES (3)`);
          throw thrown;
        });
        await expect(late).rejects.toBe(thrown);
        expect((await db.query<{ id: number }>(`SELECT id FROM ${t} ORDER BY id`)).map((r) => r.id)).toEqual([1, 3]);
      });

      it("a conflict in it runs the work again, whole", async () => {
        const t = await table("id int PRIMARY KEY");
        let attempts = 0;
        await db.transaction(async (tx) => {
          attempts++;
          await tx.query(`INSERT INTO ${t} VALUES (1)`);
          await tx.queryThenCommit(
            attempts === 1
              ? "DO $$ BEGIN RAISE EXCEPTION 'provoked by the contract test' USING ERRCODE = '40P01'; END $$"
              : `INSERT INTO ${t} VALUES (2)`,
          );
        });
        expect(attempts).toBe(2);
        expect(await count(t)).toBe(2);
      });
    });

    describe("retries", () => {
      for (const [conflict, state] of [
        ["a serialization failure", "40001"],
        ["a deadlock", "40P01"],
      ] as const) {
        it(`work that fails with ${conflict} (${state}) is rolled back and run again, whole`, async () => {
          const t = await table("attempt int");
          let attempts = 0;
          const result = await db.transaction(async (tx) => {
            const attempt = ++attempts;
            await tx.query(`INSERT INTO ${t} VALUES ($1)`, [attempt]);
            if (attempt === 1) await raise(tx, state);
            return attempt;
          });
          expect(result).toBe(2);
          expect((await db.query<{ attempt: number }>(`SELECT attempt FROM ${t}`)).map((r) => r.attempt)).toEqual([2]);
        });
      }

      it(`gives up after ${MAX_ATTEMPTS} attempts with the conflict, and retries no other error`, async () => {
        let attempts = 0;
        const conflict = await db.transaction((tx) => (attempts++, raise(tx, "40001"))).catch((error: unknown) => error);
        expect(isRetryableConflict(conflict)).toBe(true);
        expect(attempts).toBe(MAX_ATTEMPTS);

        attempts = 0;
        await expect(db.transaction((tx) => (attempts++, raise(tx, "23505")))).rejects.toMatchObject({ code: "23505" });
        expect(attempts).toBe(1);
      });

      it("two SERIALIZABLE transactions that would skew: one fails with 40001 and is retried (PGlite: they never overlap)", async () => {
        const t = await table("doctor int PRIMARY KEY, on_call boolean NOT NULL", "(1, true), (2, true)");
        let attempts = 0;
        const bothHaveRead = barrier(2);
        const goOffCall = (doctor: number) =>
          db.transaction(async (tx) => {
            const attempt = ++attempts;
            await tx.exec("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE");
            const [{ n }] = (await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${t} WHERE on_call`)) as [{ n: number }];
            if (store.concurrent && attempt <= 2) await bothHaveRead.arrive();
            if (n < 2) return false;
            await tx.query(`UPDATE ${t} SET on_call = false WHERE doctor = $1`, [doctor]);
            return true;
          });
        const wentOff = await within(10_000, Promise.all([goOffCall(1), goOffCall(2)]), "the two transactions");
        expect(wentOff.sort()).toEqual([false, true]);
        expect((await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${t} WHERE on_call`))[0]!.n).toBe(1);
        if (store.concurrent) expect(attempts).toBeGreaterThanOrEqual(3);
        else expect(attempts).toBe(2);
      });

      it.runIf(store.concurrent)("two transactions that lock two rows in opposite orders: the deadlock victim is retried", async () => {
        const t = await table("id int PRIMARY KEY, n int NOT NULL", "(1, 0), (2, 0)");
        let attempts = 0;
        const bothHoldOne = barrier(2);
        const touch = (first: number, second: number) =>
          db.transaction(async (tx) => {
            const attempt = ++attempts;
            await tx.query(`UPDATE ${t} SET n = n + 1 WHERE id = $1`, [first]);
            if (attempt <= 2) await bothHoldOne.arrive();
            await tx.query(`UPDATE ${t} SET n = n + 1 WHERE id = $1`, [second]);
          });
        await within(15_000, Promise.all([touch(1, 2), touch(2, 1)]), "the two transactions");
        // One retry at least; the backoff before it (see `retried`) usually spares the victim a second deadlock.
        expect(attempts).toBeGreaterThanOrEqual(3);
        expect(await db.query(`SELECT id, n FROM ${t} ORDER BY id`)).toEqual([
          { id: 1, n: 2 },
          { id: 2, n: 2 },
        ]);
      });

      it("a prepared statement whose table changed shape is prepared afresh: outside a transaction", async () => {
        const t = await table("id int", "(1)");
        const everyConnection = () => Promise.all(Array.from({ length: 8 }, () => db.query(`SELECT * FROM ${t}`)));
        expect(await everyConnection()).toEqual(Array(8).fill([{ id: 1 }]));
        await db.exec(`ALTER TABLE ${t} ADD COLUMN extra text NOT NULL DEFAULT 'added'`);
        expect(await everyConnection()).toEqual(Array(8).fill([{ id: 1, extra: "added" }]));
      });

      it("a prepared statement whose table changed shape is prepared afresh: inside a transaction, retried whole", async () => {
        const t = await table("id int", "(1)");
        const statement = `SELECT * FROM ${t} WHERE id = $1`;
        // Every connection prepares the statement: as many transactions as connections, all open at once.
        const allPrepared = barrier(store.connections);
        await within(
          15_000,
          Promise.all(
            Array.from({ length: store.connections }, () =>
              db.transaction(async (tx) => {
                await tx.query(statement, [1]);
                await allPrepared.arrive();
              }),
            ),
          ),
          "preparing the statement on every connection",
        );
        await db.exec(`ALTER TABLE ${t} ADD COLUMN extra text NOT NULL DEFAULT 'added'`);
        const errors: unknown[] = [];
        const rows = await db.transaction(async (tx) => {
          try {
            return await tx.query(statement, [1]);
          } catch (error) {
            errors.push(error);
            throw error;
          }
        });
        expect(rows).toEqual([{ id: 1, extra: "added" }]);
        // Whichever connection runs it prepared the statement before: the first attempt meets the stale plan.
        expect(errors).toHaveLength(1);
        expect(isStalePlan(errors[0])).toBe(true);
      });
    });

    describe("locks", () => {
      const lockKey = () => `contract:${randomUUID()}`;
      const LOCK = "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))";
      const TRY_LOCK = "SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS got";

      it("pg_advisory_xact_lock is held until the transaction commits: a second taker waits for it", async () => {
        const key = lockKey();
        const events: string[] = [];
        const firstHolds = deferred();
        const secondAsked = deferred();
        const first = db.transaction(async (tx) => {
          await tx.query(LOCK, [key]);
          events.push("first holds the lock");
          firstHolds.resolve();
          await secondAsked.promise;
          // PostgreSQL shows the second taker blocked on the lock; on PGlite it cannot even begin meanwhile.
          if (store.concurrent) await untilBlockedOnLock(tx, 1, "advisory");
          events.push("first is about to commit");
        });
        await firstHolds.promise;
        const second = db.transaction(async (tx) => {
          await tx.query(LOCK, [key]);
          events.push("second holds the lock");
        });
        secondAsked.resolve();
        await within(10_000, Promise.all([first, second]), "the two lock takers");
        expect(events).toEqual(["first holds the lock", "first is about to commit", "second holds the lock"]);
      });

      it("pg_try_advisory_xact_lock: true for the holder, again; false for another transaction meanwhile (PGlite: none runs meanwhile)", async () => {
        const key = lockKey();
        const firstHolds = deferred();
        const secondTried = deferred();
        const first = db.transaction(async (tx) => {
          const got = [
            (await tx.query<{ got: boolean }>(TRY_LOCK, [key]))[0]!.got,
            (await tx.query<{ got: boolean }>(TRY_LOCK, [key]))[0]!.got,
          ];
          firstHolds.resolve();
          if (store.concurrent) await secondTried.promise;
          return got;
        });
        await firstHolds.promise;
        const second = db.transaction(async (tx) => (await tx.query<{ got: boolean }>(TRY_LOCK, [key]))[0]!.got);
        const secondGot = await within(10_000, second, "the second transaction");
        secondTried.resolve();
        expect(await first).toEqual([true, true]);
        expect(secondGot).toBe(!store.concurrent);
        // Released at commit.
        expect(await db.transaction(async (tx) => (await tx.query<{ got: boolean }>(TRY_LOCK, [key]))[0]!.got)).toBe(true);
      });

      it("SELECT … FOR UPDATE SKIP LOCKED: two claimers take disjoint rows (PGlite: one after the other, each sees the other's claims)", async () => {
        const t = await table("id int PRIMARY KEY, claimed_by text", "(1, NULL), (2, NULL), (3, NULL), (4, NULL)");
        const claim = (claimer: string, whileHolding?: () => Promise<void>) =>
          db.transaction(async (tx) => {
            const rows = await tx.query<{ id: number }>(
              `SELECT id FROM ${t} WHERE claimed_by IS NULL ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED`,
            );
            await whileHolding?.();
            const ids = rows.map((r) => r.id);
            await tx.query(`UPDATE ${t} SET claimed_by = $2 WHERE id = ANY($1::int[])`, [ids, claimer]);
            return ids;
          });
        let first: number[];
        let second: number[];
        if (store.concurrent) {
          const firstHolds = deferred();
          const secondClaimed = deferred();
          const firstClaim = claim("first", async () => {
            firstHolds.resolve();
            await secondClaimed.promise;
          });
          await firstHolds.promise;
          // The second claimer skips the rows the first holds locked instead of waiting for them.
          second = await within(5_000, claim("second"), "the second claimer").finally(() => secondClaimed.resolve());
          first = await firstClaim;
        } else {
          [first, second] = await Promise.all([claim("first"), claim("second")]);
        }
        expect(first).toHaveLength(2);
        expect(second).toHaveLength(2);
        expect([...first, ...second].sort()).toEqual([1, 2, 3, 4]);
      });

      it("SELECT … FOR UPDATE: concurrent read-modify-writes lose no update", async () => {
        const t = await table("id int PRIMARY KEY, n int NOT NULL", "(1, 0)");
        const INCREMENTS = 5;
        const increment = () =>
          db.transaction(async (tx) => {
            const [{ n }] = (await tx.query<{ n: number }>(`SELECT n FROM ${t} WHERE id = 1 FOR UPDATE`)) as [{ n: number }];
            // PostgreSQL: the increments still to come that have a connection are blocked on the row meanwhile.
            if (store.concurrent) await untilBlockedOnLock(tx, Math.min(store.connections - 1, INCREMENTS - 1 - n));
            // PGlite: the others wait in its one connection's mutex, which shows nothing; this pause is the window
            // in which an interleaving would lose an update.
            else await sleep(10);
            await tx.query(`UPDATE ${t} SET n = $1 WHERE id = 1`, [n + 1]);
          });
        await Promise.all(Array.from({ length: INCREMENTS }, increment));
        expect((await db.query<{ n: number }>(`SELECT n FROM ${t}`))[0]!.n).toBe(5);
      });

      it.runIf(!store.concurrent)("PGlite: transactions run one at a time, and a statement outside one waits for it to end", async () => {
        const t = await table("id int PRIMARY KEY, n int NOT NULL", "(1, 0)");
        const increment = () =>
          db.transaction(async (tx) => {
            const [{ n }] = (await tx.query<{ n: number }>(`SELECT n FROM ${t} WHERE id = 1`)) as [{ n: number }];
            await sleep(10); // the others wait in PGlite's mutex, which shows nothing: the window an interleaving would use
            await tx.query(`UPDATE ${t} SET n = $1 WHERE id = 1`, [n + 1]);
          });
        await Promise.all(Array.from({ length: 5 }, increment));
        expect((await db.query<{ n: number }>(`SELECT n FROM ${t}`))[0]!.n).toBe(5);

        const events: string[] = [];
        const open = deferred();
        const writer = db.transaction(async (tx) => {
          open.resolve();
          await tx.query(`UPDATE ${t} SET n = 100 WHERE id = 1`);
          await sleep(100); // the read outside waits in PGlite's mutex, which shows nothing: the window it would use
          events.push("committing");
        });
        await open.promise;
        const outside = db.query<{ n: number }>(`SELECT n FROM ${t}`).then((rows) => (events.push("read outside"), rows[0]!.n));
        await writer;
        expect(await outside).toBe(100);
        expect(events).toEqual(["committing", "read outside"]);
      });

      it.runIf(store.concurrent)(
        "PostgreSQL: a statement outside a transaction neither waits for it nor sees its uncommitted writes",
        async () => {
          const t = await table("id int PRIMARY KEY, n int NOT NULL", "(1, 0)");
          const written = deferred();
          const readOutside = deferred();
          const writer = db.transaction(async (tx) => {
            await tx.query(`UPDATE ${t} SET n = 100 WHERE id = 1`);
            written.resolve();
            await readOutside.promise;
          });
          await written.promise;
          const seen = await within(5_000, db.query<{ n: number }>(`SELECT n FROM ${t}`), "the read outside").finally(() =>
            readOutside.resolve(),
          );
          await writer;
          expect(seen[0]!.n).toBe(0);
          expect((await db.query<{ n: number }>(`SELECT n FROM ${t}`))[0]!.n).toBe(100);
        },
      );
    });

    describe("codecs", () => {
      it("jsonb: JSON text in, the parsed value out — objects, arrays, nesting, unicode, numbers", async () => {
        const t = await table("id int PRIMARY KEY, value jsonb");
        const values: unknown[] = [
          { a: 1, b: [1, 2, { c: "d" }], e: { f: { g: { h: [[[]]] } } } },
          [1, "two", null, true, false, { x: [] }, [{}]],
          'a string with "quotes", a \\ backslash,\na newline and a tab\t',
          { unicode: "ünïcödé 日本語 🔐 \u2028 \u00e9 e\u0301", "🔑": "key in the astral plane" },
          { numbers: [0, -1, 1.5, -2.25, 1e300, 1e-300, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 0.1 + 0.2] },
          { "": "an empty key", empty: {}, none: [] },
          42,
          true,
          null,
        ];
        for (const [id, value] of values.entries()) await db.query(`INSERT INTO ${t} VALUES ($1, $2::jsonb)`, [id, JSON.stringify(value)]);
        const rows = await db.query<{ value: unknown }>(`SELECT value FROM ${t} ORDER BY id`);
        expect(rows.map((r) => r.value)).toEqual(values);
        // Inside a transaction too, and in an insert whose parameter type PostgreSQL infers from the column.
        await db.transaction((tx) => tx.query(`INSERT INTO ${t} (id, value) VALUES ($1, $2)`, [100, JSON.stringify(values[0])]));
        expect((await db.query<{ value: unknown }>(`SELECT value FROM ${t} WHERE id = 100`))[0]!.value).toEqual(values[0]);
      });

      it("jsonb: a number past 2^53 is kept exactly in the database and parsed as the nearest double", async () => {
        const text = '{"big": 12345678901234567890123, "precise": 0.1000000000000000055511151231257827}';
        const [row] = await db.query<{ value: { big: number }; big: string }>("SELECT $1::jsonb AS value, ($1::jsonb ->> 'big') AS big", [
          text,
        ]);
        expect(row!.big).toBe("12345678901234567890123");
        expect(row!.value).toEqual(JSON.parse(text));
      });

      it("jsonb: keys come back in jsonb's order (shorter first), not the order they went in", async () => {
        const [row] = await db.query<{ value: object }>("SELECT $1::jsonb AS value", ['{"bb": 1, "a": 2, "ccc": 3, "b": 4}']);
        expect(Object.keys(row!.value)).toEqual(["a", "b", "bb", "ccc"]);
      });

      it("jsonb: SQL NULL and JSON null both read as null, and stay apart in the database", async () => {
        const t = await table("id int PRIMARY KEY, value jsonb");
        await db.query(`INSERT INTO ${t} VALUES (1, $1::jsonb), (2, $2::jsonb), (3, $3::jsonb)`, [null, "null", undefined]);
        expect(await db.query(`SELECT id, value, value IS NULL AS is_sql_null, jsonb_typeof(value) AS type FROM ${t} ORDER BY id`)).toEqual(
          [
            { id: 1, value: null, is_sql_null: true, type: null },
            { id: 2, value: null, is_sql_null: false, type: "null" },
            { id: 3, value: null, is_sql_null: true, type: null },
          ],
        );
      });

      it("jsonb: an object parameter is sent as JSON; an array parameter is refused (pg sends it as a PostgreSQL array)", async () => {
        expect(await db.query("SELECT $1::jsonb AS value", [{ a: [1, { b: "c" }] }])).toEqual([{ value: { a: [1, { b: "c" }] } }]);
        await expect(db.query("SELECT $1::jsonb AS value", [[1, 2]])).rejects.toThrow();
      });

      it("jsonb: U+0000, which jsonb cannot hold, is refused with 22P05", async () => {
        await expect(db.query("SELECT $1::jsonb AS value", [JSON.stringify({ a: "nul \u0000 here" })])).rejects.toMatchObject({
          code: "22P05",
        });
      });

      it("timestamptz: a Date in, the same instant out as a Date, to the millisecond", async () => {
        const t = await table("id int PRIMARY KEY, at timestamptz");
        const instants = [
          "2024-05-06T07:08:09.123Z",
          "1970-01-01T00:00:00.000Z",
          "1999-12-31T23:59:59.999Z",
          "2099-12-31T23:59:59.001Z",
          "1900-01-01T00:00:00.000Z",
        ];
        for (const [id, instant] of instants.entries()) await db.query(`INSERT INTO ${t} VALUES ($1, $2)`, [id, new Date(instant)]);
        const rows = await db.query<{ at: Date }>(`SELECT at FROM ${t} ORDER BY id`);
        for (const row of rows) expect(row.at).toBeInstanceOf(Date);
        expect(rows.map((r) => r.at.toISOString())).toEqual(instants);
        // Compared in SQL with Date parameters, and microseconds cut (not rounded) to the millisecond.
        const [compared] = await db.query<{ before: boolean; cut: Date }>(
          "SELECT $1::timestamptz < $2::timestamptz AS before, '2024-01-01 00:00:00.123999+00'::timestamptz AS cut",
          [new Date("2024-01-01T00:00:00.001Z"), new Date("2024-01-01T00:00:00.002Z")],
        );
        expect(compared).toEqual({ before: true, cut: new Date("2024-01-01T00:00:00.123Z") });
        const [{ now }] = (await db.query<{ now: Date }>("SELECT now() AS now")) as [{ now: Date }];
        expect(Math.abs(now.getTime() - Date.now())).toBeLessThan(5_000);
      });

      it("timestamptz: the same instants whatever the session's time zone, even with a local-mean-time offset in seconds", async () => {
        const t = await table("id int PRIMARY KEY, at timestamptz");
        const instants = ["2024-05-06T07:08:09.123Z", "1900-01-01T00:00:00.000Z", "1850-06-01T12:00:00.000Z"].map((i) => new Date(i));
        for (const [id, at] of instants.entries()) await db.query(`INSERT INTO ${t} VALUES ($1, $2)`, [id, at]);
        for (const zone of ["UTC", "Asia/Kathmandu", "America/St_Johns", "Pacific/Chatham", "Europe/Amsterdam"]) {
          const rows = await db.transaction(async (tx) => {
            await tx.exec(`SET LOCAL TimeZone = '${zone}'`);
            await tx.query(`INSERT INTO ${t} VALUES ($1, $2)`, [10, instants[0]]);
            const read = await tx.query<{ at: Date }>(`SELECT at FROM ${t} ORDER BY id`);
            await tx.query(`DELETE FROM ${t} WHERE id = 10`);
            return read;
          });
          expect(
            rows.map((r) => r.at.getTime()),
            zone,
          ).toEqual([...instants, instants[0]!].map((i) => i.getTime()));
        }
      });

      it("timestamptz: the same instants whatever the process's time zone", async () => {
        const t = await table("id int PRIMARY KEY, at timestamptz");
        const at = new Date("2024-05-06T07:08:09.123Z");
        const zoneBefore = process.env.TZ;
        try {
          for (const [id, zone] of ["America/St_Johns", "Asia/Kathmandu", "UTC"].entries()) {
            process.env.TZ = zone;
            await db.query(`INSERT INTO ${t} VALUES ($1, $2)`, [id, at]);
            const rows = await db.query<{ at: Date; matches: boolean }>(`SELECT at, at = $1 AS matches FROM ${t} ORDER BY id`, [at]);
            expect(rows.map((r) => [r.at.getTime(), r.matches])).toEqual(rows.map(() => [at.getTime(), true]));
          }
        } finally {
          if (zoneBefore === undefined) delete process.env.TZ;
          else process.env.TZ = zoneBefore;
        }
      });

      it("integers: int2 and int4 as numbers; int8 (bigint, count(*)) and numeric as their exact decimal text", async () => {
        expect(
          await db.query(
            "SELECT 2::smallint AS small, 7::int AS int, 5::int8 AS big, 9007199254740993::int8 AS huge, count(*) AS count, 1.50::numeric AS num",
          ),
        ).toEqual([{ small: 2, int: 7, big: "5", huge: "9007199254740993", count: "1", num: "1.50" }]);
        const t = await table("id bigint GENERATED ALWAYS AS IDENTITY, block bigint NOT NULL");
        await db.query(`INSERT INTO ${t} (block) VALUES ($1), ($2)`, [42, "9007199254740993"]);
        expect(await db.query(`SELECT id, block, block = 9007199254740993 AS exact FROM ${t} ORDER BY id`)).toEqual([
          { id: "1", block: "42", exact: false },
          { id: "2", block: "9007199254740993", exact: true },
        ]);
      });

      it("text[]: a JS array in, for ANY() and for an array column, elements quoted and NULLs kept", async () => {
        const awkward = ["a,b", 'q"uote', "{braces}", "back\\slash", "ünï 🔐", "", null, "NULL", " spaced "];
        expect(await db.query("SELECT $1::text[] AS value", [awkward])).toEqual([{ value: awkward }]);
        expect(await db.query("SELECT $1::text[] AS value", [[]])).toEqual([{ value: [] }]);
        const t = await table("id text PRIMARY KEY");
        await db.query(`INSERT INTO ${t} SELECT unnest($1::text[])`, [["a,b", 'q"uote', "plain"]]);
        const found = await db.query<{ id: string }>(`SELECT id FROM ${t} WHERE id = ANY($1::text[]) ORDER BY id`, [
          ["a,b", 'q"uote', "absent"],
        ]);
        expect(found.map((r) => r.id)).toEqual(["a,b", 'q"uote']);
      });

      it("booleans, text and NULL: as they are; undefined is NULL", async () => {
        expect(
          await db.query("SELECT $1::boolean AS yes, $2::boolean AS no, $3::text AS text, $4::text AS missing, $5::int AS none", [
            true,
            false,
            "tëxt",
            undefined,
            null,
          ]),
        ).toEqual([{ yes: true, no: false, text: "tëxt", missing: null, none: null }]);
      });
    });
  });
}

storeContract({
  name: "PGlite",
  concurrent: false,
  connections: 1,
  async open() {
    const db = await openPglite("memory://");
    return { db, close: () => db.close() };
  },
});

storeContract({
  name: "PostgreSQL (needs DATABASE_URL)",
  concurrent: true,
  connections: 4,
  skip: !process.env.DATABASE_URL,
  async open() {
    const database = await freshPostgresDatabase(process.env.DATABASE_URL!, "strongroom_store");
    const db = await openPostgres(database.url, { poolSize: 4 }); // `connections` above
    return {
      db,
      async close() {
        await db.close();
        await database.drop();
      },
    };
  },
});
