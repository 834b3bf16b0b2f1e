/**
 * Statements per operation on PostgreSQL: Strongroom (the build, in a process of its own) on a fresh database
 * whose sessions log every statement with its duration (`log_min_duration_statement = 0`), a few of each
 * operation through the SDK, and the statements the server's log shows for each (BEGIN, SAVEPOINT and COMMIT
 * included) with their median server-side time. The audit log's integrator (src/audit/integrate.ts) runs its own
 * transaction after a commit, shared by the activities committed within 250 ms of one another (one per request
 * here, where they come one at a time): its statements are counted apart (`integratorPerRequest`), and the
 * server runs one process (`STRONGROOM_WORKERS=1`) so no second integrator polls. Needs DATABASE_URL
 * and read access to the server's log (POSTGRES_LOG, default Debian's /var/log/postgresql/postgresql-15-main.log,
 * whose log_line_prefix names the database).
 *
 *   npm run build && DATABASE_URL=postgres://… npx tsx bench/statements.ts
 */
import { readFileSync, statSync } from "node:fs";
import pg from "pg";
import { ETH, startBuiltServerProcess } from "./support.js";

const LOG = process.env.POSTGRES_LOG ?? "/var/log/postgresql/postgresql-15-main.log";
const REPEAT = Number(process.env.BENCH_REPEAT ?? 5);
if (!process.env.DATABASE_URL) throw new Error("DATABASE_URL must name a PostgreSQL server");

let database = "";
const server = await startBuiltServerProcess(
  // The webhook worker's poll (and its housekeeping) would otherwise fall between a request's statements.
  { STRONGROOM_WEBHOOK_POLL_MS: "3600000", STRONGROOM_AUDIT_POLL_MS: "3600000", STRONGROOM_WORKERS: "1" },
  {
    beforeStart: async (url) => {
      database = new URL(url).pathname.slice(1);
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      // Every statement with its duration (server-side execution, the extended protocol's execute step).
      await admin.query(`ALTER DATABASE ${database} SET log_min_duration_statement = 0`);
      await admin.end();
    },
  },
);

const client = server.client();
const { userIds } = await client.createUsers({
  users: [{ userName: "renamed", apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }],
});
const { addresses } = await client.createWallet({ walletName: "signer", accounts: [ETH] });

/** The statements this database's sessions logged while `work` ran, each with its duration. */
async function statementsOf(work: () => Promise<unknown>): Promise<Array<{ ms: number; sql: string }>> {
  const start = statSync(LOG).size;
  await work();
  await new Promise((r) => setTimeout(r, 300)); // the log is written by another process
  // An entry starts with the timestamp; a statement's further lines follow it.
  const entries = readFileSync(LOG, "utf8")
    .slice(start)
    .split(/\n(?=\d{4}-\d\d-\d\d )/);
  return entries
    .filter((entry) => entry.includes(`@${database} LOG:`) && /LOG: {2}duration: [0-9.]+ ms {2}(statement|execute [^:]*):/.test(entry))
    .map((entry) => ({
      ms: Number(/duration: ([0-9.]+) ms/.exec(entry)![1]),
      sql: entry
        .replace(/^.*?LOG: {2}duration: [0-9.]+ ms {2}(statement|execute [^:]*): /, "")
        .replace(/\s+/g, " ")
        .trim()
        .slice(0, 100),
    }));
}

const operations: Record<string, () => Promise<unknown>> = {
  whoami: () => client.getWhoami({}),
  update_user_name: () => client.updateUserName({ userId: userIds[0]!, userName: `renamed ${Math.random()}` }),
  sign_raw_payload: () =>
    client.signRawPayload({
      signWith: addresses[0]!,
      payload: "00".repeat(32),
      encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
      hashFunction: "HASH_FUNCTION_NO_OP",
    }),
  create_wallet: () => client.createWallet({ walletName: `wallet ${Math.random()}`, accounts: [ETH] }),
};
/** The integrator's own statements (its BEGIN and COMMIT are counted by its lock, one per pass). */
const INTEGRATOR =
  /audit_log_state|^SELECT s.size, s.integrator|audit_entries|audit_hashes|audit_checkpoints|FROM audit_pending ORDER BY|DELETE FROM audit_pending/;
const PASS = "SELECT 1 FROM audit_log_state WHERE id FOR UPDATE";

const report: Record<string, { perRequest: number; integratorPerRequest: number; msPerRequest: number; statements: string[] }> = {};
try {
  for (const [name, call] of Object.entries(operations)) {
    await call(); // prepares the statements once
    const logged = await statementsOf(async () => {
      for (let i = 0; i < REPEAT; i++) await call();
    });
    // A pass: BEGIN, its lock, …, the state row's update, COMMIT — the BEGIN just before the lock and the COMMIT just
    // after the update are the pass's (requests come one at a time, so passes do not interleave with them).
    const ofIntegrator = new Set<number>();
    logged.forEach((s, i) => {
      if (!INTEGRATOR.test(s.sql)) return;
      ofIntegrator.add(i);
      if (s.sql === PASS && logged[i - 1]?.sql === "BEGIN") ofIntegrator.add(i - 1);
      if (s.sql.startsWith("UPDATE audit_log_state SET size") && logged[i + 1]?.sql === "COMMIT") ofIntegrator.add(i + 1);
    });
    const statements = logged.filter((_, i) => !ofIntegrator.has(i));
    // Per statement of one request: its median duration over the REPEAT requests.
    const perRequest = statements.length / REPEAT;
    const first = statements.slice(0, Math.ceil(perRequest));
    const medianMs = (sql: string) => {
      const times = statements
        .filter((s) => s.sql === sql)
        .map((s) => s.ms)
        .sort((a, b) => a - b);
      return times[Math.floor(times.length / 2)] ?? 0;
    };
    report[name] = {
      perRequest,
      integratorPerRequest: (logged.length - statements.length) / REPEAT,
      msPerRequest: +(statements.reduce((sum, s) => sum + s.ms, 0) / REPEAT).toFixed(3),
      statements: first.map((s) => `${medianMs(s.sql).toFixed(3)} ms  ${s.sql}`),
    };
  }
} finally {
  await server.stop();
}
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
