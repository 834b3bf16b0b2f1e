import { Turnkey } from "@turnkey/sdk-server";
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

/** BENCH_CLI points at another build (e.g. of an earlier commit) to compare against. */
const CLI = process.env.BENCH_CLI ?? join(import.meta.dirname, "..", "dist", "cli", "main.js");

export interface Strongroom {
  url: string;
  pid: number;
  root: { organizationId: string; userId: string; apiPublicKey: string; apiPrivateKey: string };
  client(key?: { publicKey: string; privateKey: string }): ReturnType<Turnkey["apiClient"]>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function adminQuery(baseUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  await client.query(sql);
  await client.end();
}

/**
 * Strongroom built from this checkout, in a process of its own, on a fresh data directory — or, with
 * DATABASE_URL (or `databaseUrl`), on a fresh database created beside the one it names (dropped
 * afterwards). `databaseUrl: null` forces the embedded PGlite store.
 */
export async function startStrongroom(
  extraEnv: Record<string, string> = {},
  options: { databaseUrl?: string | null; nodeArgs?: string[] } = {},
): Promise<Strongroom> {
  const dataDir = mkdtempSync(join(tmpdir(), "strongroom-bench-"));
  const baseUrl = options.databaseUrl === undefined ? process.env.DATABASE_URL : (options.databaseUrl ?? undefined);
  const database = `strongroom_bench_${randomBytes(6).toString("hex")}`;
  let databaseUrl: string | undefined;
  if (baseUrl) {
    await adminQuery(baseUrl, `CREATE DATABASE ${database}`);
    const url = new URL(baseUrl);
    url.pathname = `/${database}`;
    databaseUrl = url.toString();
  }
  const { DATABASE_URL: _inherited, ...inheritedEnv } = process.env;
  const env = {
    ...inheritedEnv,
    STRONGROOM_DATA_DIR: dataDir,
    STRONGROOM_MASTER_KEY: randomBytes(32).toString("hex"),
    LOG_LEVEL: "warn",
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...extraEnv,
  };
  const root = JSON.parse(
    execFileSync("node", [CLI, "init", "--organization-name", `bench ${Date.now()}`], { env, encoding: "utf8" }),
  ) as Strongroom["root"];
  const port = await freePort();
  const server = spawn("node", [...(options.nodeArgs ?? []), CLI, "serve", "--port", String(port)], {
    env,
    stdio: ["ignore", "ignore", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (
      (await fetch(`${url}/health`)
        .then((r) => r.ok)
        .catch(() => false)) === true
    )
      break;
    if (i > 1200) {
      server.kill();
      throw new Error("the server did not start within a minute");
    }
    await new Promise((r) => setTimeout(r, 50));
  }
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
      if (baseUrl) await adminQuery(baseUrl, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
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
