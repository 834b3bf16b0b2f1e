import { Turnkey } from "@turnkey/sdk-server";
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { freshPostgresDatabase } from "../test/helpers/postgres-database.js";
import { freePort, waitUntilHealthy } from "../test/helpers/processes.js";

/** BENCH_CLI points at another build (e.g. of an earlier commit) to compare against. */
const CLI = process.env.BENCH_CLI ?? join(import.meta.dirname, "..", "dist", "cli", "main.js");

/** A built Strongroom serving in a process of its own (not the in-process test kit of `strongroom/testing`). */
export interface BuiltServerProcess {
  url: string;
  pid: number;
  root: { organizationId: string; userId: string; apiPublicKey: string; apiPrivateKey: string };
  client(key?: { publicKey: string; privateKey: string }): ReturnType<Turnkey["apiClient"]>;
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
  options: { databaseUrl?: string | null; nodeArgs?: string[]; beforeStart?: (databaseUrl: string) => Promise<void> } = {},
): Promise<BuiltServerProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), "strongroom-bench-"));
  const baseUrl = options.databaseUrl === undefined ? process.env.DATABASE_URL : (options.databaseUrl ?? undefined);
  const database = baseUrl ? await freshPostgresDatabase(baseUrl, "strongroom_bench") : undefined;
  const { DATABASE_URL: _inherited, ...inheritedEnv } = process.env;
  const env = {
    ...inheritedEnv,
    STRONGROOM_DATA_DIR: dataDir,
    STRONGROOM_MASTER_KEY: randomBytes(32).toString("hex"),
    LOG_LEVEL: "warn",
    // The auth proxy's fixed default port would collide with any other server on the machine.
    AUTH_PROXY_PORT: "off",
    ...(database ? { DATABASE_URL: database.url } : {}),
    ...extraEnv,
  };
  const root = JSON.parse(
    execFileSync("node", [CLI, "init", "--organization-name", `bench ${Date.now()}`], { env, encoding: "utf8" }),
  ) as BuiltServerProcess["root"];
  if (database && options.beforeStart) await options.beforeStart(database.url);
  const port = await freePort();
  const server = spawn("node", [...(options.nodeArgs ?? []), CLI, "serve", "--port", String(port)], {
    env,
    stdio: ["ignore", "ignore", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitUntilHealthy(url, server, 60_000);
  return {
    url,
    pid: server.pid!,
    root,
    client: (key) =>
      new Turnkey({
        apiBaseUrl: url,
        apiPublicKey: key?.publicKey ?? root.apiPublicKey,
        apiPrivateKey: key?.privateKey ?? root.apiPrivateKey,
        defaultOrganizationId: root.organizationId,
      }).apiClient(),
    async stop() {
      server.kill();
      await new Promise((r) => server.once("exit", r));
      rmSync(dataDir, { recursive: true, force: true });
      await database?.drop();
    },
  };
}

/** CPU time (user + system, ms) a process has used so far, from /proc on Linux; undefined elsewhere. */
export function cpuMs(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8")
      .replace(/^.*\) /, "")
      .split(" ");
    // utime and stime are fields 14 and 15 of stat(5), here 12 and 13 after the command name was cut off.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
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
