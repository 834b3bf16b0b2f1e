import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const settings = { dataDir: "memory://", host: "127.0.0.1", port: 0 };

describe("DATABASE_POOL_SIZE", () => {
  it("takes a positive whole number, and refuses anything else naming the setting", () => {
    expect(resolveConfig(settings, { DATABASE_POOL_SIZE: "3" }).databasePoolSize).toBe(3);
    expect(resolveConfig(settings, {}).databasePoolSize).toBeUndefined();
    for (const wrong of ["0", "-2", "1.5", "ten"])
      expect(() => resolveConfig(settings, { DATABASE_POOL_SIZE: wrong })).toThrow("DATABASE_POOL_SIZE must be a positive integer");
  });
});

/**
 * The connections one server process opens to PostgreSQL: its pool keeps them open after the load, so counting its
 * database's backends afterwards gives the most it held at once.
 */
describe.skipIf(!process.env.DATABASE_URL)("the PostgreSQL connections a process holds (needs DATABASE_URL)", () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function concurrentRenames(running: TestServer): Promise<void> {
    const burst = Math.random();
    const { userIds } = await running.client().createUsers({
      users: Array.from({ length: 20 }, (_, i) => ({
        userName: `user ${i} of ${burst}`,
        apiKeys: [],
        authenticators: [],
        oauthProviders: [],
        userTags: [],
      })),
    });
    const answers = await Promise.all(
      userIds.map((userId, i) => running.client().updateUserName({ userId, userName: `renamed ${i} of ${burst}` })),
    );
    expect(answers.map((a) => a.userId).sort()).toEqual([...userIds].sort());
  }

  /** The process ids of the PostgreSQL backends serving the server's database. */
  async function backendsOf(running: TestServer): Promise<number[]> {
    const [{ database }] = (await running.services.db.query<{ database: string }>("SELECT current_database() AS database")) as [
      { database: string },
    ];
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend' ORDER BY pid",
        [database],
      );
      return rows.map((row) => row.pid);
    } finally {
      await admin.end();
    }
  }

  async function connectionsAfterConcurrentRenames(env: Record<string, string>): Promise<number> {
    server = await startTestServer({ env });
    await concurrentRenames(server);
    return (await backendsOf(server)).length;
  }

  it("holds at most DATABASE_POOL_SIZE, and still answers 20 requests at once", async () => {
    expect(await connectionsAfterConcurrentRenames({ DATABASE_POOL_SIZE: "2" })).toBeLessThanOrEqual(2);
  });

  it("opens more than that under the same load by default", async () => {
    expect(await connectionsAfterConcurrentRenames({})).toBeGreaterThan(2);
  });

  // pg closes a connection idle for 10 s by default; each one opened again costs PostgreSQL a process, its caches and
  // a parse and plan of every statement, which after every lull doubled what a burst cost it (bench/README.md).
  it(
    "keeps its connections over a lull longer than 10 s: the backends of one burst are there for the next",
    { timeout: 40_000 },
    async () => {
      server = await startTestServer();
      await concurrentRenames(server);
      const before = await backendsOf(server);
      expect(before.length).toBeGreaterThan(2);
      await new Promise((resolve) => setTimeout(resolve, 11_000));
      await concurrentRenames(server);
      // Each of them still serves (a busier second burst may open one more, up to the pool's size).
      expect(await backendsOf(server)).toEqual(expect.arrayContaining(before));
    },
  );
});
