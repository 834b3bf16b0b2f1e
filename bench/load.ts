/**
 * Load: Strongroom in a process of its own, driven over loopback by autocannon from this process with
 * real, pre-signed stamps (every activity body distinct, so idempotency never answers from a previous
 * one), beside the limits it is measured against — a bare Fastify route that only verifies the same
 * kind of stamp (in a process of its own, same autocannon settings), that route plus one transaction inserting one
 * row, that route running a rename's own statements (`bench/bare-route.ts`), and the bare curve operations.
 *
 *   npm run bench:load                                  # PGlite only
 *   DATABASE_URL=postgres://… npm run bench:load        # PGlite, then PostgreSQL (fresh database)
 *   BENCH_ONLY=pglite|postgres BENCH_SCENARIOS=whoami,rename  # subsets while profiling
 *   BENCH_WORKERS=2 BENCH_ONLY=postgres …                  # `serve --workers 2` (default: one per core on PostgreSQL)
 */
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { p256 } from "@noble/curves/nist.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { spawn } from "node:child_process";
import { createPublicKey, randomBytes, randomUUID, verify } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freshPostgresDatabase } from "../test/helpers/postgres-database.js";
import { drive, sign, type Measured } from "./drive.js";
import { CONNECTIONS, prepareScenarios, runScenarios, SCENARIOS, type Amounts, type ScenarioSubjects } from "./scenarios.js";
import { loadAverageSampler, perSecond, startBuiltServerProcess, workersEnv, writeResult, type BuiltServerProcess } from "./support.js";

// ---------------------------------------------------------------------------------------------------
// The limits.

function bareCurveOperations() {
  const secpKey = secp256k1.utils.randomSecretKey();
  const digest = sha256(randomBytes(32));
  const stampKey = p256.utils.randomSecretKey();
  const body = Buffer.from(JSON.stringify({ organizationId: "00000000-0000-4000-8000-000000000000" }));
  const signature = Buffer.from(p256.sign(sha256(body), stampKey, { prehash: false, format: "der" }));
  const point = p256.getPublicKey(stampKey, false);
  const publicKey = createPublicKey({
    key: {
      kty: "EC",
      crv: "P-256",
      x: Buffer.from(point.slice(1, 33)).toString("base64url"),
      y: Buffer.from(point.slice(33)).toString("base64url"),
    },
    format: "jwk",
  });
  perSecond(500, () => verify("sha256", body, publicKey, signature));
  perSecond(500, () => secp256k1.sign(digest, secpKey, { prehash: false, format: "recovered" }));
  return {
    p256VerifyPerSecond: Math.round(perSecond(5000, () => verify("sha256", body, publicKey, signature))),
    secp256k1SignPerSecond: Math.round(perSecond(3000, () => secp256k1.sign(digest, secpKey, { prehash: false, format: "recovered" }))),
  };
}

/**
 * `bench/bare-route.ts` in a process of its own; with `store`, its submit route inserts one row per request, or with
 * `rename` too, runs a rename's statements.
 */
async function startBareRoute(store?: string, rename = false): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const args = [join(import.meta.dirname, "bare-route.ts"), String(port), ...(store ? [store] : []), ...(rename ? ["rename"] : [])];
  const child = spawn("node", ["--import", "tsx", ...args], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill();
    await new Promise((r) => child.once("exit", r));
  };
  for (let i = 0; ; i++) {
    if (
      (await fetch(`${url}/health`)
        .then((r) => r.ok)
        .catch(() => false)) === true
    )
      break;
    if (i > 1200) {
      await stop();
      throw new Error("the bare route did not start");
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url, pid: child.pid!, stop };
}

async function bareRoute(stamper: ApiKeyStamper, organizationId: string): Promise<Measured[]> {
  const bare = await startBareRoute();
  try {
    const whoami = [await sign(stamper, "/public/v1/query/whoami", JSON.stringify({ organizationId }))];
    const ok = (body: string) => body.includes(organizationId);
    process.stderr.write("bare route\n");
    await drive(bare, 10, whoami, ok, 2000); // warm-up
    const results: Measured[] = [];
    for (const connections of CONNECTIONS) results.push(await drive(bare, connections, whoami, ok, connections === 1 ? 4000 : 16000));
    return results;
  } finally {
    await bare.stop();
  }
}

/**
 * Drives a limit as the rename scenario is driven: each body (from `body`) signed by `stamper` and sent once to the
 * rename's path, a warm-up, then the scenario's amounts at each connection count; an answer naming the organization is a success.
 */
async function driveLikeRenames(
  route: Parameters<typeof drive>[0],
  stamper: ApiKeyStamper,
  organizationId: string,
  body: () => string,
): Promise<Measured[]> {
  const path = "/public/v1/submit/update_user_name";
  const signMany = (count: number) => Promise.all(Array.from({ length: count }, () => sign(stamper, path, body())));
  const ok = (answer: string) => answer.includes(organizationId);
  await drive(route, 10, await signMany(150), ok); // warm-up
  const results: Measured[] = [];
  for (const [index, connections] of CONNECTIONS.entries())
    results.push(await drive(route, connections, await signMany(AMOUNTS.rename[index]! + connections + 1), ok));
  return results;
}

/**
 * The second limit: the bare route plus one transaction inserting one row, on a fresh store of the same kind
 * opened by Strongroom's own adapter (same settings), driven like the rename scenario (distinct bodies).
 */
async function insertRoute(stamper: ApiKeyStamper, organizationId: string, databaseUrl: string | null): Promise<Measured[]> {
  const dataDir = mkdtempSync(join(tmpdir(), "strongroom-bench-limit-"));
  const database = databaseUrl ? await freshPostgresDatabase(databaseUrl, "strongroom_bench") : undefined;
  const started = await startBareRoute(database ? `postgres:${database.url}` : `pglite:${dataDir}`);
  // Named, so that the figures split the CPU with PostgreSQL's backends as the scenarios' do.
  const route = database ? { ...started, databaseName: new URL(database.url).pathname.slice(1) } : started;
  try {
    let serial = 0;
    const body = () =>
      JSON.stringify({
        type: "ACTIVITY_TYPE_UPDATE_USER_NAME",
        timestampMs: String(Date.now() + serial++),
        organizationId,
        parameters: { userId: randomUUID(), userName: `renamed ${serial}` },
      });
    process.stderr.write(`bare route + one-row transaction (${database ? "PostgreSQL" : "PGlite"})\n`);
    return await driveLikeRenames(route, stamper, organizationId, body);
  } finally {
    await route.stop();
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  }
}

/**
 * The third limit, rename's only: the bare route running a rename's own statements (authentication, SAVEPOINT,
 * UPDATE, the activity's insert with its COMMIT) on Strongroom's store, stopped meanwhile, renaming the scenario's users.
 * Above the one-row transaction, what a rename's records cost; below it, what Strongroom's pipeline adds.
 */
async function renameStatementsRoute(
  strongroom: BuiltServerProcess,
  stamper: ApiKeyStamper,
  { userIds }: ScenarioSubjects,
): Promise<Measured[]> {
  let results: Measured[] = [];
  await strongroom.restart(async ({ dataDir, databaseUrl }) => {
    const started = await startBareRoute(databaseUrl ? `postgres:${databaseUrl}` : `pglite:${dataDir}`, true);
    const route = databaseUrl ? { ...started, databaseName: new URL(databaseUrl).pathname.slice(1) } : started;
    try {
      const { organizationId } = strongroom.root;
      let serial = 0;
      const body = () =>
        JSON.stringify({
          type: "ACTIVITY_TYPE_UPDATE_USER_NAME",
          timestampMs: String(Date.now() + serial),
          organizationId,
          parameters: { userId: userIds[serial % userIds.length], userName: `limit ${serial++}` },
        });
      process.stderr.write(`bare route + a rename's statements (${databaseUrl ? "PostgreSQL" : "PGlite"})\n`);
      results = await driveLikeRenames(route, stamper, organizationId, body);
    } finally {
      await route.stop();
    }
  });
  return results;
}

// ---------------------------------------------------------------------------------------------------
// Strongroom.

/** Requests per measured run: at 1 connection, at 50. */
const AMOUNTS: Amounts = { whoami: [3000, 10000], rename: [1000, 3000], sign: [1000, 3000], wallet: [300, 1500] };

/** A figure over its limit, to three decimals. */
const ratio = (value: number, limit: number) => +(value / limit).toFixed(3);
/** A limit's run at `connections`. */
const runAt = (runs: Measured[], connections: number) => runs.find((run) => run.connections === connections);

/** A scenario's run with its ratios to the limits of the same run. */
type Figure = Measured & {
  perSecondOverBareRoute: number;
  perSecondOverOneRowTransaction: number;
  perSecondOverRenameStatements?: number;
  p50OverCurveFloor?: number;
};

/**
 * Every figure over a limit of the same run, higher is better (the result file's `ratios`, what bench:compare compares):
 * requests per second over the bare route's and the one-row transaction's, the one-row transaction's server CPU per
 * request over the scenario's, for renames their requests per second over the rename's statements' (and those over
 * the one-row transaction's), and for signing the bare curve operations' time over the p50.
 */
function ratiosOf(
  stores: Record<string, Record<string, Figure[]>>,
  insert: Record<string, Measured[]>,
  renameStatements: Record<string, Measured[]>,
): Record<string, number> {
  const ratios: Record<string, number> = {};
  for (const [store, runs] of Object.entries(renameStatements)) {
    for (const run of runs) {
      ratios[`${store} rename's statements ${run.connections} conn: req/s ÷ one-row transaction`] = ratio(
        run.perSecond,
        runAt(insert[store]!, run.connections)!.perSecond,
      );
    }
  }
  for (const [store, scenarios] of Object.entries(stores)) {
    for (const [scenario, runs] of Object.entries(scenarios)) {
      for (const run of runs) {
        const at = `${store} ${scenario} ${run.connections} conn`;
        ratios[`${at}: req/s ÷ bare route`] = run.perSecondOverBareRoute;
        ratios[`${at}: req/s ÷ one-row transaction`] = run.perSecondOverOneRowTransaction;
        if (run.perSecondOverRenameStatements) ratios[`${at}: req/s ÷ rename's statements`] = run.perSecondOverRenameStatements;
        const limitCpu = runAt(insert[store]!, run.connections)?.serverCpuMsPerRequest;
        if (limitCpu && run.serverCpuMsPerRequest)
          ratios[`${at}: one-row transaction's CPU ÷ CPU per request`] = ratio(limitCpu, run.serverCpuMsPerRequest);
        if (run.p50OverCurveFloor) ratios[`${at}: curve floor ÷ p50`] = ratio(1, run.p50OverCurveFloor);
      }
    }
  }
  return ratios;
}

async function main() {
  const load = loadAverageSampler();
  const curves = bareCurveOperations();
  const stores: Array<{ name: string; databaseUrl: string | null }> = [];
  if (process.env.BENCH_ONLY !== "postgres") stores.push({ name: "PGlite", databaseUrl: null });
  if (process.env.DATABASE_URL && process.env.BENCH_ONLY !== "pglite")
    stores.push({ name: "PostgreSQL", databaseUrl: process.env.DATABASE_URL });

  let bare: Measured[] | undefined;
  const insert: Record<string, Measured[]> = {};
  const renameStatements: Record<string, Measured[]> = {};
  const perStore: Record<string, Record<string, Measured[]>> = {};
  for (const { name, databaseUrl } of stores) {
    const nodeArgs = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(" ") : [];
    const strongroom = await startBuiltServerProcess(workersEnv(), { databaseUrl, nodeArgs });
    try {
      const stamper = new ApiKeyStamper({ apiPublicKey: strongroom.root.apiPublicKey, apiPrivateKey: strongroom.root.apiPrivateKey });
      bare ??= await bareRoute(stamper, strongroom.root.organizationId);
      insert[name] = await insertRoute(stamper, strongroom.root.organizationId, databaseUrl);
      const subjects = await prepareScenarios(strongroom);
      perStore[name] = await runScenarios(strongroom, stamper, subjects, AMOUNTS);
      if (SCENARIOS.includes("rename")) renameStatements[name] = await renameStatementsRoute(strongroom, stamper, subjects);
    } finally {
      await strongroom.stop();
    }
  }

  const signFloorMs = 1000 / curves.p256VerifyPerSecond + 1000 / curves.secp256k1SignPerSecond;
  const figures: Record<string, Record<string, Figure[]>> = Object.fromEntries(
    Object.entries(perStore).map(([name, scenarios]) => [
      name,
      Object.fromEntries(
        Object.entries(scenarios).map(([scenario, runs]) => [
          scenario,
          runs.map((run) => ({
            ...run,
            perSecondOverBareRoute: ratio(run.perSecond, runAt(bare!, run.connections)!.perSecond),
            perSecondOverOneRowTransaction: ratio(run.perSecond, runAt(insert[name]!, run.connections)!.perSecond),
            ...(scenario === "rename" && renameStatements[name]
              ? { perSecondOverRenameStatements: ratio(run.perSecond, runAt(renameStatements[name], run.connections)!.perSecond) }
              : {}),
            ...(scenario === "sign" ? { p50OverCurveFloor: ratio(run.p50Ms, signFloorMs) } : {}),
          })),
        ]),
      ),
    ]),
  );
  const result = {
    benchmark: "load",
    loadAverage: load.finish(),
    limits: {
      ...curves,
      signFloorMs: +signFloorMs.toFixed(3),
      bareRoute: bare,
      bareRoutePlusOneRowTransaction: insert,
      bareRoutePlusRenameStatements: renameStatements,
    },
    figures: { ...(process.env.BENCH_WORKERS ? { workers: Number(process.env.BENCH_WORKERS) } : {}), stores: figures },
    ratios: ratiosOf(figures, insert, renameStatements),
  };
  writeResult(result);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

await main();
