import { Turnkey } from "@turnkey/sdk-server";
import { execFileSync, execSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { freshPostgresDatabase } from "../test/helpers/postgres-database.js";
import { freePort, waitUntilHealthy } from "../test/helpers/processes.js";

/** BENCH_CLI points at another build (e.g. of an earlier commit) to compare against. */
const CLI = process.env.BENCH_CLI ?? join(import.meta.dirname, "..", "dist", "cli", "strongroom.js");

/** A built Strongroom serving in a process of its own (not the in-process test kit of `strongroom/testing`). */
export interface BuiltServerProcess {
  url: string;
  pid: number;
  /** PostgreSQL: the benchmark's database, whose backends' CPU time `postgresCpuMs` reads. */
  databaseName?: string;
  root: { organizationId: string; userId: string; apiPublicKey: string; apiPrivateKey: string };
  client(key?: { publicKey: string; privateKey: string }): ReturnType<Turnkey["apiClient"]>;
  /** Stops the server, runs `between` on its store (the data directory, or the database's URL), and serves again on the same port. */
  restart(between: (store: { dataDir: string; databaseUrl?: string }) => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Strongroom built from this checkout (`dist/`, or BENCH_CLI), in a process of its own whose CPU time can be
 * read, on a fresh data directory — or, with DATABASE_URL (or `databaseUrl`), on a fresh database created
 * beside the one it names (dropped afterwards). `databaseUrl: null` forces the embedded PGlite store.
 * For an in-process server from the sources, the test kit's `startStrongroom` (src/testing) is the one to use.
 */
export async function startBuiltServerProcess(
  extraEnv: Record<string, string> = {},
  options: {
    databaseUrl?: string | null;
    nodeArgs?: string[];
    beforeStart?: (databaseUrl: string) => Promise<void>;
    /** The build's CLI (`dist/cli/strongroom.js`); BENCH_CLI or this checkout's by default. */
    cli?: string;
  } = {},
): Promise<BuiltServerProcess> {
  const cli = options.cli ?? CLI;
  const dataDir = mkdtempSync(join(tmpdir(), "strongroom-bench-"));
  const baseUrl = options.databaseUrl === undefined ? process.env.DATABASE_URL : (options.databaseUrl ?? undefined);
  const database = baseUrl ? await freshPostgresDatabase(baseUrl, "strongroom_bench") : undefined;
  const { DATABASE_URL: _inherited, ...inheritedEnv } = process.env;
  const env = {
    ...inheritedEnv,
    STRONGROOM_DATA_DIR: dataDir,
    STRONGROOM_MASTER_KEY: randomBytes(32).toString("hex"),
    LOG_LEVEL: "warn",
    // The auth proxy's fixed default port would collide with any other server on the machine;
    AUTH_PROXY_PORT: "0", // a free port: "off" is not understood by builds before it was added (BENCH_CLI)
    ...(database ? { DATABASE_URL: database.url } : {}),
    ...extraEnv,
  };
  const root = JSON.parse(
    execFileSync("node", [cli, "init", "--organization-name", `bench ${Date.now()}`], { env, encoding: "utf8" }),
  ) as BuiltServerProcess["root"];
  if (database && options.beforeStart) await options.beforeStart(database.url);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const serve = async () => {
    const child = spawn("node", [...(options.nodeArgs ?? []), cli, "serve", "--port", String(port)], {
      env,
      stdio: ["ignore", "ignore", "inherit"],
    });
    await waitUntilHealthy(url, child, 60_000);
    return child;
  };
  const halt = async () => {
    server.kill();
    await new Promise((r) => server.once("exit", r));
  };
  let server = await serve();
  return {
    url,
    get pid() {
      return server.pid!;
    },
    ...(database ? { databaseName: new URL(database.url).pathname.slice(1) } : {}),
    root,
    client: (key) =>
      new Turnkey({
        apiBaseUrl: url,
        apiPublicKey: key?.publicKey ?? root.apiPublicKey,
        apiPrivateKey: key?.privateKey ?? root.apiPrivateKey,
        defaultOrganizationId: root.organizationId,
      }).apiClient(),
    async restart(between) {
      await halt();
      await between({ dataDir, ...(database ? { databaseUrl: database.url } : {}) });
      server = await serve();
    },
    async stop() {
      await halt();
      rmSync(dataDir, { recursive: true, force: true });
      await database?.drop();
    },
  };
}

/** BENCH_WORKERS: how many worker processes `serve` runs (its STRONGROOM_WORKERS; unset, one per core on PostgreSQL). */
export const workersEnv = (): Record<string, string> =>
  process.env.BENCH_WORKERS ? { STRONGROOM_WORKERS: process.env.BENCH_WORKERS } : {};

/**
 * CPU time (user + system, ms) a process and its live descendants (`serve --workers N`'s workers) have used so far,
 * from /proc on Linux; undefined elsewhere.
 */
export function cpuMs(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8")
      .replace(/^.*\) /, "")
      .split(" ");
    // utime and stime are fields 14 and 15 of stat(5), here 12 and 13 after the command name was cut off.
    const own = ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
    return own + childrenOf(pid).reduce((sum, child) => sum + (cpuMs(child) ?? 0), 0);
  } catch {
    return undefined;
  }
}

/**
 * CPU time (ms) each PostgreSQL backend serving `database` has used so far, by process id (their command line names
 * it: "postgres: user database host(port) state"). Linux only; undefined elsewhere.
 */
export function postgresCpuMs(database: string): Map<number, number> | undefined {
  try {
    const backends = new Map<number, number>();
    for (const pid of readdirSync("/proc").filter((name) => /^[0-9]+$/.test(name))) {
      try {
        if (!readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(` ${database} `)) continue;
        const fields = readFileSync(`/proc/${pid}/stat`, "utf8")
          .replace(/^.*\) /, "")
          .split(" ");
        backends.set(Number(pid), ((Number(fields[11]) + Number(fields[12])) * 1000) / 100);
      } catch {
        // gone meanwhile
      }
    }
    return backends;
  } catch {
    return undefined;
  }
}

/** The CPU time the backends of `after` used since `before` (a backend that ended meanwhile is not counted). */
export const postgresCpuSince = (before: Map<number, number>, after: Map<number, number>): number =>
  [...after].reduce((sum, [pid, ms]) => sum + ms - (before.get(pid) ?? 0), 0);

/** A process's child processes (/proc/<pid>/task/<tid>/children of each of its threads). */
function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").trim().split(" ").filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Latencies (ms, sorted) of `count` sequential calls after `warmup` unmeasured ones. */
export async function sequentialLatencies(count: number, call: () => Promise<unknown>, warmup = 50): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await call();
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await call();
    latencies.push(performance.now() - start);
  }
  return latencies.sort((a, b) => a - b);
}

export function perSecond(iterations: number, fn: () => void): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) fn();
  return iterations / (Number(process.hrtime.bigint() - start) / 1e9);
}

export const machine = () => `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, node ${process.version}`;
export const store = () => (process.env.DATABASE_URL ? "PostgreSQL" : "PGlite (embedded)");

/** The Ethereum account the benchmarks create wallets with. */
export const ETH = {
  curve: "CURVE_SECP256K1",
  pathFormat: "PATH_FORMAT_BIP32",
  path: "m/44'/60'/0'/0/0",
  addressFormat: "ADDRESS_FORMAT_ETHEREUM",
} as const;

// ---------------------------------------------------------------------------------------------------
// Result files: every run writes one (bench/results/, git-ignored), and `npm run bench:compare -- A.json B.json`
// compares two (bench/compare.ts).

/** The 1-minute load average before, while (sampled each second) and after a benchmark ran. */
export interface LoadAverage {
  before: number;
  whileMeasuring: { mean: number; max: number };
  after: number;
}

/**
 * One benchmark run: where and when it ran, every figure, the limits measured in the same run, and `ratios`:
 * each figure over a limit of the same run, oriented so that higher is better (a rate over the limit's rate, the
 * limit's latency or CPU time over the figure's). Ratios are what two runs are compared on: they carry over between
 * runs at different loads and on different machines far better than the figures themselves.
 */
export interface BenchResult {
  benchmark: string;
  commit: string;
  date: string;
  machine: { cpu: string; nproc: number; node: string };
  loadAverage: LoadAverage;
  limits: Record<string, unknown>;
  figures: Record<string, unknown>;
  ratios: Record<string, number>;
}

/** Starts sampling the load average (once a second) until `finish`. */
export function loadAverageSampler(): { finish(): LoadAverage } {
  const before = loadavg()[0]!;
  const samples: number[] = [];
  const timer = setInterval(() => samples.push(loadavg()[0]!), 1000);
  timer.unref();
  const round = (value: number) => +value.toFixed(2);
  return {
    finish() {
      clearInterval(timer);
      const after = loadavg()[0]!;
      const during = samples.length > 0 ? samples : [after];
      return {
        before: round(before),
        whileMeasuring: { mean: round(during.reduce((a, b) => a + b, 0) / during.length), max: round(Math.max(...during)) },
        after: round(after),
      };
    },
  };
}

/** The checkout's commit, marked when src/ or bench/ hold uncommitted changes. */
export function gitCommit(): string {
  try {
    const dirty = execSync("git status --porcelain -- src bench", { encoding: "utf8" }).trim() !== "";
    return execSync("git rev-parse --short HEAD", { encoding: "utf8" }).trim() + (dirty ? "-dirty" : "");
  } catch {
    return "unknown";
  }
}

export const machineDescription = (): BenchResult["machine"] => ({
  cpu: cpus()[0]?.model ?? "unknown",
  nproc: cpus().length,
  node: process.version,
});

/** Where result files go: BENCH_RESULTS_DIR, or bench/results/ in this checkout. */
export const resultsDir = (): string => process.env.BENCH_RESULTS_DIR ?? join(import.meta.dirname, "results");

/** Writes a run's result file (named by benchmark, time and commit) and says where on stderr; answers its path. */
export function writeResult({ benchmark, ...rest }: Omit<BenchResult, "commit" | "date" | "machine">): string {
  const date = new Date().toISOString();
  const commit = gitCommit();
  const whole: BenchResult = { benchmark, commit, date, machine: machineDescription(), ...rest };
  const dir = resultsDir();
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${benchmark}-${date.replace(/[:.]/g, "-")}-${commit}.json`);
  writeFileSync(path, `${JSON.stringify(whole, null, 2)}\n`);
  process.stderr.write(`result: ${path}\n`);
  return path;
}
