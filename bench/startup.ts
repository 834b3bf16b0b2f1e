/**
 * Start-up time and memory of the embedded server: `strongroom serve` (compiled, dist/) on a fresh data
 * directory (initdb, migrations, server keys) and again on that same, existing directory. Time is from spawn to
 * the first 200 from /health; memory is the process's resident set (VmRSS) once healthy and its peak (VmHWM).
 * The limit, in the same run: a bare Node process serving /health (node:http, nothing loaded), measured alike.
 *
 *   npm run build && npx tsx bench/startup.ts            (BENCH_RUNS=5 for more runs; BENCH_CLI for another build)
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cpuMs, loadAverageSampler, writeResult } from "./support.js";

const CLI = process.env.BENCH_CLI ?? join(import.meta.dirname, "..", "dist", "cli", "strongroom.js");
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

interface Sample {
  healthyMs: number;
  /** The server process's CPU time (user + system, all threads) from spawn to healthy: steadier than wall time on a shared machine. */
  cpuMs: number;
  rssMb: number;
  peakRssMb: number;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function memoryOf(pid: number): { rssMb: number; peakRssMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  return { rssMb: kb("VmRSS") / 1024, peakRssMb: kb("VmHWM") / 1024 };
}

/** The limit: a Node process that only serves /health. */
const BARE_SERVER = `require("node:http").createServer((_, res) => res.end("ok")).listen(Number(process.argv[1]), "127.0.0.1")`;

/** Strongroom on `dataDir`, or without one the bare Node server. */
async function startOnce(dataDir?: string): Promise<Sample> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: "warn" };
  delete env.DATABASE_URL;
  delete env.STRONGROOM_MASTER_KEY;
  const args = dataDir
    ? [CLI, "serve", "--data-dir", dataDir, "--port", String(port), "--auth-proxy-port", "0"]
    : ["-e", BARE_SERVER, String(port)];
  const started = performance.now();
  const server = spawn(process.execPath, args, { env, stdio: ["ignore", "ignore", "inherit"] });
  const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()));
  try {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/health`)
        .then((r) => r.ok)
        .catch(() => false);
      if (ok) break;
      if (server.exitCode !== null) throw new Error(`the server exited with ${server.exitCode} before it was healthy`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const healthyMs = performance.now() - started;
    return { healthyMs, cpuMs: cpuMs(server.pid!) ?? NaN, ...memoryOf(server.pid!) };
  } finally {
    server.kill("SIGTERM");
    await exited;
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const summary = (values: number[], digits: number) =>
  `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;

const load = loadAverageSampler();
const bare: Sample[] = [];
const fresh: Sample[] = [];
const existing: Sample[] = [];
for (let run = 0; run < RUNS; run++) {
  const dataDir = mkdtempSync(join(tmpdir(), "strongroom-startup-"));
  try {
    bare.push(await startOnce());
    fresh.push(await startOnce(dataDir));
    existing.push(await startOnce(dataDir));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

console.log(
  `| data directory | time to healthy, ms | CPU to healthy, ms | RSS when healthy, MB | peak RSS, MB |   (median (min–max) of ${RUNS} runs)`,
);
console.log("|---|---|---|---|---|");
for (const [name, samples] of [
  ["none (bare Node server, the limit)", bare],
  ["fresh", fresh],
  ["existing", existing],
] as const) {
  console.log(
    `| ${name} | ${summary(
      samples.map((s) => s.healthyMs),
      0,
    )} | ${summary(
      samples.map((s) => s.cpuMs),
      0,
    )} | ${summary(
      samples.map((s) => s.rssMb),
      0,
    )} | ${summary(
      samples.map((s) => s.peakRssMb),
      0,
    )} |`,
  );
}

const medians = (samples: Sample[]) => ({
  healthyMs: Math.round(median(samples.map((s) => s.healthyMs))),
  cpuMs: Math.round(median(samples.map((s) => s.cpuMs))),
  rssMb: Math.round(median(samples.map((s) => s.rssMb))),
  peakRssMb: Math.round(median(samples.map((s) => s.peakRssMb))),
});
const limit = medians(bare);
const figures = { fresh: medians(fresh), existing: medians(existing), runs: RUNS };
const ratio = (a: number, b: number) => +(a / b).toFixed(3);
writeResult({
  benchmark: "startup",
  loadAverage: load.finish(),
  limits: { bareNodeServer: limit },
  figures,
  ratios: Object.fromEntries(
    (["fresh", "existing"] as const).flatMap((name) => [
      [`${name} data directory: bare time to healthy ÷ time to healthy`, ratio(limit.healthyMs, figures[name].healthyMs)],
      [`${name} data directory: bare CPU ÷ CPU to healthy`, ratio(limit.cpuMs, figures[name].cpuMs)],
      [`${name} data directory: bare resident set ÷ resident set when healthy`, ratio(limit.rssMb, figures[name].rssMb)],
    ]),
  ),
});
