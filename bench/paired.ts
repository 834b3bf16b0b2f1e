/**
 * Two builds compared in the same run, paired: both serve at once (each in its own process, fresh store), and the
 * same scenarios are sent to one then the other, round after round (A B, B A, A B, …), so a machine whose load or
 * speed drifts slows both alike. What is compared is the server's CPU time per request (steadier than wall time on
 * a shared machine) and the latency p50 — on PostgreSQL also its backends' CPU time per request (each build has a
 * database of its own) and the requests per second; the answer is each build's median over the rounds and the ratio B ÷ A.
 *
 *   npm run build && BENCH_CLI_B=/tmp/old/dist/cli/strongroom.js npx tsx bench/paired.ts
 *   BENCH_CLI_A=…  (default: this checkout's dist/)   BENCH_ROUNDS=6   BENCH_REQUESTS=300   BENCH_CONNECTIONS=1
 *   BENCH_SCENARIOS=whoami,rename,sign,wallet   DATABASE_URL=postgres://… (PostgreSQL instead of PGlite)
 *   BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof"   (given to both servers)
 *   BENCH_IDLE_MS=12000   (both servers idle that long before each measurement: bursts after a lull)
 *
 * One build under two settings instead: BENCH_ENV_B adds environment variables to B's server (B is then A's build
 * unless BENCH_CLI_B names another), e.g. what the audit log costs an activity:
 *
 *   npm run build && BENCH_ENV_B=STRONGROOM_AUDIT=off npx tsx bench/paired.ts
 */
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { randomBytes } from "node:crypto";
import { Agent, request } from "node:http";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createWalletBody, prepareScenarios, walletHolders } from "./scenarios.js";
import { cpuMs, percentile, postgresCpuMs, postgresCpuSince, startBuiltServerProcess, type BuiltServerProcess } from "./support.js";

const CLI_A = process.env.BENCH_CLI_A ?? join(import.meta.dirname, "..", "dist", "cli", "strongroom.js");
const ENV_B = Object.fromEntries(
  (process.env.BENCH_ENV_B ?? "")
    .split(/\s+/)
    .filter(Boolean)
    .map((setting) => {
      const at = setting.indexOf("=");
      if (at < 1) throw new Error(`BENCH_ENV_B holds NAME=value settings, not ${JSON.stringify(setting)}`);
      return [setting.slice(0, at), setting.slice(at + 1)];
    }),
);
const CLI_B = process.env.BENCH_CLI_B ?? (Object.keys(ENV_B).length > 0 ? CLI_A : undefined);
if (!CLI_B) throw new Error("BENCH_CLI_B must name the other build's dist/cli/strongroom.js (or BENCH_ENV_B the settings B runs with)");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 1);
const SCENARIOS = (process.env.BENCH_SCENARIOS ?? "whoami,rename,sign").split(",");
/** Quiet before each measured round, both servers idle: a burst after a lull (BENCH_IDLE_MS, default none). */
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 0);
/** Requests of each scenario before the first round: every statement prepared, every module loaded, the JIT settled. */
const WARM_UP = { whoami: 100, rename: 100, sign: 100, wallet: 20 } as const;

interface Signed {
  path: string;
  body: string;
  stamp: string;
}

interface Build {
  name: "A" | "B";
  server: BuiltServerProcess;
  agent: Agent;
  stamper: ApiKeyStamper;
  /** Builds the next distinct body of a scenario. */
  next: Record<string, () => { path: string; body: string }>;
}

function post(build: Build, signed: Signed): Promise<{ status: number; body: string }> {
  const url = new URL(signed.path, build.server.url);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: "POST", agent: build.agent, headers: { "content-type": "application/json", "x-stamp": signed.stamp } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      },
    );
    req.on("error", reject);
    req.end(signed.body);
  });
}

async function prepareBuild(name: Build["name"], cli: string, env: Record<string, string> = {}): Promise<Build> {
  const nodeArgs = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(" ") : [];
  const server = await startBuiltServerProcess(env, { cli, nodeArgs });
  const { organizationId } = server.root;
  const { userIds, signer } = await prepareScenarios(server);
  // An organization holds at most 100 wallets: wallets are created in sub-organizations, in turn.
  const holders = SCENARIOS.includes("wallet") ? await walletHolders(server, WARM_UP.wallet + ROUNDS * REQUESTS) : [];
  let serial = 0;
  let walletsAsked = 0;
  const activity = (type: string, parameters: unknown) =>
    JSON.stringify({ type, timestampMs: String(Date.now() + serial++), organizationId, parameters });
  return {
    name,
    server,
    agent: new Agent({ keepAlive: true, maxSockets: CONNECTIONS }),
    stamper: new ApiKeyStamper({ apiPublicKey: server.root.apiPublicKey, apiPrivateKey: server.root.apiPrivateKey }),
    next: {
      whoami: () => ({ path: "/public/v1/query/whoami", body: JSON.stringify({ organizationId }) }),
      rename: () => ({
        path: "/public/v1/submit/update_user_name",
        body: activity("ACTIVITY_TYPE_UPDATE_USER_NAME", { userId: userIds[serial % userIds.length], userName: `renamed ${serial}` }),
      }),
      sign: () => ({
        path: "/public/v1/submit/sign_raw_payload",
        body: activity("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", {
          signWith: signer,
          payload: randomBytes(32).toString("hex"),
          encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
          hashFunction: "HASH_FUNCTION_NO_OP",
        }),
      }),
      wallet: () => ({
        path: "/public/v1/submit/create_wallet",
        body: createWalletBody(holders[walletsAsked++ % holders.length]!, serial++),
      }),
    },
  };
}

interface Sample {
  cpuMsPerRequest: number;
  p50Ms: number;
  perSecond: number;
  /** PostgreSQL: the backends of the build's database. */
  postgresCpuMsPerRequest?: number;
}

/** `count` distinct signed requests of a scenario, sent over CONNECTIONS connections. */
async function measure(build: Build, scenario: string, count: number): Promise<Sample> {
  const signed: Signed[] = [];
  for (let i = 0; i < count; i++) {
    const { path, body } = build.next[scenario]!();
    signed.push({ path, body, stamp: (await build.stamper.stamp(body)).stampHeaderValue });
  }
  const latencies: number[] = [];
  let index = 0;
  const database = build.server.databaseName;
  const postgresBefore = database ? postgresCpuMs(database) : undefined;
  const cpuBefore = cpuMs(build.server.pid)!;
  const startedAt = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (index < signed.length) {
        const item = signed[index++]!;
        const started = performance.now();
        const { status, body } = await post(build, item);
        latencies.push(performance.now() - started);
        if (status !== 200 || (item.path.includes("/submit/") && !body.includes('"ACTIVITY_STATUS_COMPLETED"')))
          throw new Error(`${build.name} ${scenario}: ${status} ${body.slice(0, 300)}`);
      }
    }),
  );
  const seconds = (performance.now() - startedAt) / 1000;
  const cpu = cpuMs(build.server.pid)! - cpuBefore;
  const postgresAfter = database ? postgresCpuMs(database) : undefined;
  latencies.sort((a, b) => a - b);
  return {
    cpuMsPerRequest: cpu / count,
    p50Ms: percentile(latencies, 50),
    perSecond: count / seconds,
    ...(postgresBefore && postgresAfter ? { postgresCpuMsPerRequest: postgresCpuSince(postgresBefore, postgresAfter) / count } : {}),
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const builds = [await prepareBuild("A", CLI_A), await prepareBuild("B", CLI_B, ENV_B)];
const samples: Record<string, Record<"A" | "B", Sample[]>> = {};
try {
  for (const build of builds) for (const scenario of SCENARIOS) await measure(build, scenario, WARM_UP[scenario as keyof typeof WARM_UP]);
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? builds : [...builds].reverse();
    for (const scenario of SCENARIOS) {
      for (const build of order) {
        // A query costs a third of an activity: three times as many, for as many CPU clock ticks (10 ms each).
        const count = scenario === "whoami" ? 3 * REQUESTS : REQUESTS;
        if (IDLE_MS > 0) await sleep(IDLE_MS);
        const sample = await measure(build, scenario, count);
        (samples[scenario] ??= { A: [], B: [] })[build.name].push(sample);
      }
    }
    process.stderr.write(`round ${round + 1} of ${ROUNDS}\n`);
  }
} finally {
  for (const build of builds) {
    build.agent.destroy();
    await build.server.stop();
  }
}

/** Each build's median of one figure over the rounds, and B ÷ A. */
function compared(A: Sample[], B: Sample[], figure: keyof Sample, digits = 3) {
  const a = median(A.map((s) => s[figure] ?? NaN));
  const b = median(B.map((s) => s[figure] ?? NaN));
  return { A: +a.toFixed(digits), B: +b.toFixed(digits), BoverA: +(b / a).toFixed(3) };
}

const report = Object.fromEntries(
  Object.entries(samples).map(([scenario, { A, B }]) => [
    scenario,
    {
      cpuMsPerRequest: compared(A, B, "cpuMsPerRequest"),
      p50Ms: compared(A, B, "p50Ms"),
      perSecond: compared(A, B, "perSecond", 0),
      ...(A[0]?.postgresCpuMsPerRequest !== undefined ? { postgresCpuMsPerRequest: compared(A, B, "postgresCpuMsPerRequest") } : {}),
      cpuMsPerRequestEachRound: { A: A.map((s) => +s.cpuMsPerRequest.toFixed(3)), B: B.map((s) => +s.cpuMsPerRequest.toFixed(3)) },
    },
  ]),
);
process.stdout.write(`${JSON.stringify({ A: CLI_A, B: CLI_B, envB: ENV_B, connections: CONNECTIONS, report }, null, 2)}\n`);
