/**
 * Cost as the work grows (issue 30, target 6): the load scenarios (bench/scenarios.ts) and the list queries the SDK
 * uses, first in an organization holding only what the benchmark made, then — same server, same data directory or
 * database — after seeding it through the store (bench/seed-organization.ts) with 100,000 activities, 10,000 users,
 * 1,000 wallets, 200 policies and 1,000 sub-organizations. Reports p50 and p99 of each in both, big ÷ empty, one
 * page of each list (the first, and one deep in it, 100 rows a page) or the whole list where the API takes no
 * paginationOptions, and the bytes the tables grew by per activity, wallet, user, policy and sub-organization.
 *
 *   npm run bench:scale                                  # PGlite only
 *   DATABASE_URL=postgres://… npm run bench:scale        # PGlite, then PostgreSQL (fresh database)
 *   BENCH_ONLY=pglite|postgres BENCH_SCALE=0.1 BENCH_SCENARIOS=whoami,rename BENCH_WORKERS=1
 *   BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof"   # a profile per server process: before, empty, big
 *   BENCH_LISTS=0                                        # the scenarios only (profiles without the lists' large answers)
 */
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { execFileSync } from "node:child_process";
import { drive, sign, type Measured } from "./drive.js";
import { prepareScenarios, runScenarios, type Amounts } from "./scenarios.js";
import {
  MEASURED_TABLES,
  prepareTemplates,
  seededCopyId,
  seedOrganization,
  type SeedCounts,
  type TableBytes,
} from "./seed-organization.js";
import { cpuMs, loadAverageSampler, startBuiltServerProcess, workersEnv, writeResult, type BuiltServerProcess } from "./support.js";

const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const COUNTS: SeedCounts = {
  activities: Math.round(100_000 * SCALE),
  users: Math.round(10_000 * SCALE),
  // With the one of each the benchmark made through the API: 200 policies, 1,000 sub-organizations.
  policies: Math.round(200 * SCALE) - 1,
  subOrganizations: Math.round(1_000 * SCALE) - 1,
  wallets: { total: Math.round(1_000 * SCALE), inOrganization: Math.round(40 * Math.min(1, SCALE)) },
};
/**
 * At least 1,000 requests of each scenario and connection count, so that a p99 is the tenth-slowest request, not one
 * of the two or three slowest (with 100 to 300, big ÷ empty p99 moved by ±40 % between quiet runs).
 */
const AMOUNTS: Amounts = { whoami: [2000, 5000], rename: [1000, 3000], sign: [1000, 3000], wallet: [1000, 1500] };
const PAGE = "100";

interface ListQuery {
  name: string;
  path: string;
  body: Record<string, unknown>;
  /** The array of the answer, to count the rows. */
  rows: string;
  repeat: number;
}

/** The list queries, with a deep page's cursor: in the seeded organization, a copy far down the list; before seeding, the second page. */
async function listQueries(strongroom: BuiltServerProcess, seeded: boolean): Promise<ListQuery[]> {
  const { organizationId } = strongroom.root;
  const client = strongroom.client();
  const deepActivity = seeded
    ? seededCopyId("activity", Math.round(COUNTS.activities / 10)) // newest first: 90 % of the copies come before it
    : (await client.getActivities({ paginationOptions: { limit: PAGE } })).activities.at(-1)!.id;
  const deepSubOrganization = seeded
    ? seededCopyId("subOrganization", Math.round(COUNTS.subOrganizations * 0.9)) // oldest first
    : (await client.getSubOrgIds({ paginationOptions: { limit: PAGE } })).organizationIds.at(-1)!;
  const page = (after?: string) => ({ paginationOptions: { limit: PAGE, ...(after ? { after } : {}) } });
  const query = (name: string, rows: string, body: Record<string, unknown>, repeat = 200): ListQuery => ({
    name,
    path: `/public/v1/query/${name.split(" ")[0]}`,
    body: { organizationId, ...body },
    rows,
    repeat,
  });
  return [
    query("list_activities first page", "activities", page()),
    query("list_activities deep page", "activities", page(deepActivity)),
    query("list_users (all: no paginationOptions)", "users", {}, 30),
    query("list_wallets (all: no paginationOptions)", "wallets", {}),
    query("list_wallet_accounts first page", "accounts", page()),
    query("list_wallet_accounts (all: without paginationOptions)", "accounts", {}),
    query("list_policies (all: no paginationOptions)", "policies", {}, 100),
    query("list_suborgs first page", "organizationIds", page()),
    query("list_suborgs deep page", "organizationIds", page(deepSubOrganization)),
  ];
}

type ListFigure = Measured & { name: string; rowsPerAnswer: number };

async function runLists(strongroom: BuiltServerProcess, stamper: ApiKeyStamper, seeded: boolean): Promise<ListFigure[]> {
  const figures: ListFigure[] = [];
  if (process.env.BENCH_LISTS === "0") return figures;
  for (const list of await listQueries(strongroom, seeded)) {
    process.stderr.write(`${list.name}\n`);
    const signed = await sign(stamper, list.path, JSON.stringify(list.body));
    const answer = await fetch(`${strongroom.url}${list.path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-stamp": signed.stamp },
      body: signed.body,
    });
    if (!answer.ok) throw new Error(`${list.name}: ${answer.status} ${await answer.text()}`);
    const rowsPerAnswer = ((await answer.json()) as Record<string, unknown[]>)[list.rows]!.length;
    const ok = (body: string) => body.startsWith(`{"${list.rows}":`);
    await drive(strongroom, 1, [signed], ok, 10); // warm-up
    figures.push({ name: list.name, rowsPerAnswer, ...(await drive(strongroom, 1, [signed], ok, list.repeat)) });
  }
  return figures;
}

/** The seeded rows, read back through the SDK as a client would. */
async function verifySeeded(strongroom: BuiltServerProcess): Promise<Record<string, number>> {
  const client = strongroom.client();
  const deep = seededCopyId("activity", 5);
  const { activity } = await client.getActivity({ activityId: deep });
  const older = await client.getActivities({ paginationOptions: { limit: "10", after: deep } });
  const users = await client.getUsers({});
  const wallets = await client.getWallets({});
  const accounts = await client.getWalletAccounts({ walletId: seededCopyId("wallet", 1) });
  const policies = await client.getPolicies({});
  const subOrganizations = await client.getSubOrgIds({ paginationOptions: { limit: "100", after: seededCopyId("subOrganization", 1) } });
  const counts = {
    activitiesOlderThanCopy5: older.activities.length,
    users: users.users.length,
    wallets: wallets.wallets.length,
    accountsOfASeededWallet: accounts.accounts.length,
    policies: policies.policies.length,
    subOrganizationsPage: subOrganizations.organizationIds.length,
  };
  const expected =
    activity.id === deep &&
    activity.votes.length === 1 &&
    older.activities.every((a) => a.id.startsWith("a0000001-")) &&
    counts.activitiesOlderThanCopy5 === 4 &&
    counts.users >= COUNTS.users &&
    counts.wallets >= COUNTS.wallets.inOrganization &&
    counts.accountsOfASeededWallet === 1 &&
    counts.policies === COUNTS.policies + 1 &&
    counts.subOrganizationsPage === Math.min(100, COUNTS.subOrganizations);
  if (!expected) throw new Error(`the seeded rows do not read back as seeded: ${JSON.stringify(counts)}`);
  return counts;
}

const directoryBytes = (dir: string) => Number(execFileSync("du", ["-sb", dir], { encoding: "utf8" }).split("\t")[0]);

/** Bytes the measured tables grew by, per row seeded of what they hold. */
function growth(before: TableBytes, after: TableBytes, seeded: Record<keyof typeof MEASURED_TABLES, number>) {
  return Object.fromEntries(
    Object.entries(MEASURED_TABLES).map(([what, tables]) => {
      const grew = tables.reduce((sum, t) => sum + after[t]! - before[t]!, 0);
      return [`bytesPer_${what}`, Math.round(grew / seeded[what as keyof typeof MEASURED_TABLES])];
    }),
  );
}

/**
 * Waits until the server's processes have used less than 5 % of a core over the last second (at most a minute): what a
 * process does in its first seconds — the keyring's re-seal pass reads every sealed column once, the audit log's
 * integrator catches up — grows with the store, and measured through the scenarios it would read as a cost per request.
 * Answers how long that took and the CPU it used.
 */
async function afterStartWork(strongroom: BuiltServerProcess): Promise<{ waitedMs: number; cpuMs: number }> {
  const started = performance.now();
  const first = cpuMs(strongroom.pid) ?? 0;
  const samples = [first];
  while (performance.now() - started < 60_000) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    samples.push(cpuMs(strongroom.pid) ?? 0);
    if (samples.length > 4 && samples.at(-1)! - samples.at(-5)! < 50) break;
  }
  const waited = { waitedMs: Math.round(performance.now() - started), cpuMs: Math.round(samples.at(-1)! - first) };
  process.stderr.write(`— the start's own work: ${waited.cpuMs} ms of CPU, idle after ${waited.waitedMs} ms\n`);
  return waited;
}

async function measureStore(databaseUrl: string | null) {
  const nodeArgs = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(" ") : [];
  const strongroom = await startBuiltServerProcess(workersEnv(), { databaseUrl, nodeArgs });
  try {
    const stamper = new ApiKeyStamper({ apiPublicKey: strongroom.root.apiPublicKey, apiPrivateKey: strongroom.root.apiPrivateKey });
    const subjects = await prepareScenarios(strongroom);
    const templates = await prepareTemplates(strongroom, subjects);
    process.stderr.write("— empty organization\n");
    // Both states are measured in a server just started (the big one must restart around the seeding), once what a
    // process does in its first seconds is over (`afterStartWork`): a young process's JIT falls alike in both.
    await strongroom.restart(async () => undefined);
    const emptyStart = await afterStartWork(strongroom);
    // Scenarios before lists: the whole-list answers (10,051 users) would leave the server's heap grown for what follows.
    const empty = {
      startWork: emptyStart,
      scenarios: await runScenarios(strongroom, stamper, subjects, AMOUNTS),
      lists: await runLists(strongroom, stamper, false),
    };
    let seeding: Awaited<ReturnType<typeof seedOrganization>> | undefined;
    let dataDirBytes: { before: number; after: number } | undefined;
    await strongroom.restart(async (where) => {
      const before = directoryBytes(where.dataDir);
      seeding = await seedOrganization(where, templates, COUNTS);
      dataDirBytes = { before, after: directoryBytes(where.dataDir) };
    });
    process.stderr.write(`— seeded in ${seeding!.seedMs} ms\n`);
    const bigStart = await afterStartWork(strongroom);
    // The scenarios first here too: the check that the seeded rows read back lists all 10,051 users (as the lists do),
    // and only the big state would otherwise be measured in a heap that answer grew. A profile of the whole process
    // once took that answer's parsing of user records for the renames' own.
    const bigScenarios = await runScenarios(strongroom, stamper, subjects, AMOUNTS);
    const verified = await verifySeeded(strongroom);
    const big = { startWork: bigStart, scenarios: bigScenarios, lists: await runLists(strongroom, stamper, true) };
    const { before, after, seedMs } = seeding!;
    return {
      empty,
      big,
      seeding: {
        counts: COUNTS,
        seedMs,
        verified,
        tableBytes: { before, after },
        ...growth(before, after, {
          activity: COUNTS.activities,
          wallet: COUNTS.wallets.total,
          user: COUNTS.users,
          policy: COUNTS.policies,
          subOrganization: COUNTS.subOrganizations,
        }),
        ...(databaseUrl
          ? {}
          : { dataDirBytes, dataDirBytesPerActivity: Math.round((dataDirBytes!.after - dataDirBytes!.before) / COUNTS.activities) }),
      },
    };
  } finally {
    await strongroom.stop();
  }
}

/**
 * Empty ÷ big for p50 and p99 of every scenario and list (higher is better; ≥ 0.83 is "within 20 %"), and for a deep
 * page of a list the first page's p50 over its own. (A list's first page before seeding holds fewer rows than after.)
 */
function ratiosOf(stores: Record<string, Awaited<ReturnType<typeof measureStore>>>): Record<string, number> {
  const ratios: Record<string, number> = {};
  const ratio = (a: number, b: number) => +(a / Math.max(b, 0.01)).toFixed(3);
  for (const [store, { empty, big }] of Object.entries(stores)) {
    for (const [scenario, runs] of Object.entries(big.scenarios)) {
      for (const run of runs) {
        const before = empty.scenarios[scenario]!.find((r) => r.connections === run.connections)!;
        ratios[`${store} ${scenario} ${run.connections} conn: empty p50 ÷ big p50`] = ratio(before.p50Ms, run.p50Ms);
        ratios[`${store} ${scenario} ${run.connections} conn: empty p99 ÷ big p99`] = ratio(before.p99Ms, run.p99Ms);
        if (before.serverCpuMsPerRequest && run.serverCpuMsPerRequest)
          ratios[`${store} ${scenario} ${run.connections} conn: empty CPU ÷ big CPU per request`] = ratio(
            before.serverCpuMsPerRequest,
            run.serverCpuMsPerRequest,
          );
      }
    }
    for (const list of big.lists) {
      const before = empty.lists.find((l) => l.name === list.name)!;
      ratios[`${store} ${list.name}: empty p50 ÷ big p50`] = ratio(before.p50Ms, list.p50Ms);
      // A bounded cost per page: a page deep in the seeded list costs what the first does.
      const first = big.lists.find((l) => l.name === list.name.replace("deep page", "first page"));
      if (list.name.endsWith("deep page") && first)
        ratios[`${store} ${list.name}: first page p50 ÷ deep page p50`] = ratio(first.p50Ms, list.p50Ms);
    }
  }
  return ratios;
}

async function main() {
  const load = loadAverageSampler();
  const stores: Record<string, Awaited<ReturnType<typeof measureStore>>> = {};
  if (process.env.BENCH_ONLY !== "postgres") stores.PGlite = await measureStore(null);
  if (process.env.DATABASE_URL && process.env.BENCH_ONLY !== "pglite") stores.PostgreSQL = await measureStore(process.env.DATABASE_URL);
  const result = {
    benchmark: "scale",
    loadAverage: load.finish(),
    limits: { emptyOrganization: "the same scenarios and lists before seeding, same server and store" },
    figures: { ...(process.env.BENCH_WORKERS ? { workers: Number(process.env.BENCH_WORKERS) } : {}), stores },
    ratios: ratiosOf(stores),
  };
  writeResult(result);
  process.stdout.write(`${JSON.stringify(result.ratios, null, 2)}\n`);
}

await main();
