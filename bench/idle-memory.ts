/**
 * Idle memory of the embedded server: `strongroom serve` (compiled, dist/) on an existing data directory, sent
 * nothing, its resident set (VmRSS) read every BENCH_SAMPLE_SECONDS for BENCH_MINUTES, and the CPU time it used meanwhile. Several settings run side by
 * side, each on its own copy of the same store, so a drifting machine moves them alike; the limit, in the same run,
 * is a bare Node process serving /health.
 *
 *   npm run build && npx tsx bench/idle-memory.ts
 *   BENCH_VARIANTS="default|MALLOC_ARENA_MAX=2|PGLITE_SHARED_BUFFERS=4MB --wasm-tiering-budget=1800000"
 *   BENCH_MINUTES=3   BENCH_SAMPLE_SECONDS=15   BENCH_CLI=<another build's dist/cli/strongroom.js>
 *
 * A variant is "default" or settings separated by spaces: NAME=value goes into the server's environment (read when
 * the process starts, as glibc's MALLOC_ARENA_MAX is), --flag onto Node's command line.
 */
import { spawn, execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { embeddedCliEnv, freePort, waitUntilHealthy } from "../test/helpers/processes.js";
import { loadAverageSampler, writeResult } from "./support.js";

const CLI = process.env.BENCH_CLI ?? join(import.meta.dirname, "..", "dist", "cli", "strongroom.js");
const MINUTES = Number(process.env.BENCH_MINUTES ?? 3);
const SAMPLE_SECONDS = Number(process.env.BENCH_SAMPLE_SECONDS ?? 15);
const VARIANTS = (process.env.BENCH_VARIANTS ?? "default|MALLOC_ARENA_MAX=2").split("|").map((v) => v.trim());
/** The target of issue 30: the embedded server under 150 MB resident when idle. */
const TARGET_MB = 150;

interface Variant {
  name: string;
  env: Record<string, string>;
  nodeArgs: string[];
}

function parseVariant(text: string): Variant {
  const settings = text === "default" ? [] : text.split(/\s+/).filter(Boolean);
  const env: Record<string, string> = {};
  const nodeArgs: string[] = [];
  for (const setting of settings) {
    if (setting.startsWith("--")) nodeArgs.push(setting);
    else if (/^[A-Z_][A-Z0-9_]*=/.test(setting)) env[setting.slice(0, setting.indexOf("="))] = setting.slice(setting.indexOf("=") + 1);
    else throw new Error(`BENCH_VARIANTS: ${JSON.stringify(setting)} is neither NAME=value nor --flag`);
  }
  return { name: text, env, nodeArgs };
}

/** CPU time the process has used (user and system), from /proc/PID/stat in clock ticks of 10 ms. */
const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

const rssMb = (pid: number) => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN) / 1024;

/** The embedded CLI's environment (test/helpers/processes.ts), with a variant's settings. */
const serverEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({ ...embeddedCliEnv(), ...extra });

/** A process serving /health on a free port, once it answers. */
async function started(args: string[], env: NodeJS.ProcessEnv, port: number) {
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "ignore", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await waitUntilHealthy(`http://127.0.0.1:${port}`, child, 60_000);
  return {
    pid: child.pid!,
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

const serveArgs = (dataDir: string, port: number) => [
  CLI,
  "serve",
  "--data-dir",
  dataDir,
  "--port",
  String(port),
  "--auth-proxy-port",
  "0",
];

// One store, started once (created, migrated, its keys written) and stopped: each variant serves a copy of it.
const work = mkdtempSync(join(tmpdir(), "strongroom-idle-"));
try {
  const store = join(work, "store");
  execFileSync(process.execPath, [CLI, "init", "--data-dir", store, "--organization-name", "idle"], { env: serverEnv(), stdio: "ignore" });
  const firstPort = await freePort();
  await (await started(serveArgs(store, firstPort), serverEnv(), firstPort)).stop();

  const load = loadAverageSampler();
  const bareScript = `require("node:http").createServer((_, res) => res.end("ok")).listen(Number(process.argv[1]), "127.0.0.1")`;
  const barePort = await freePort();
  const bare = await started(["-e", bareScript, String(barePort)], serverEnv(), barePort);
  const servers = [];
  for (const [i, variant] of VARIANTS.map(parseVariant).entries()) {
    const dataDir = join(work, `variant-${i}`);
    cpSync(store, dataDir, { recursive: true });
    const port = await freePort();
    servers.push({ variant, server: await started([...variant.nodeArgs, ...serveArgs(dataDir, port)], serverEnv(variant.env), port) });
  }
  const samples = new Map<string, number[]>(servers.map(({ variant }) => [variant.name, []]));
  const bareSamples: number[] = [];
  const seconds: number[] = [];
  const cpuAtStart = new Map([[bare.pid, cpuMs(bare.pid)], ...servers.map(({ server }) => [server.pid, cpuMs(server.pid)] as const)]);
  /** CPU used while idle, in ms per minute. */
  const idleCpu = (pid: number) => Math.round(((cpuMs(pid) - cpuAtStart.get(pid)!) / (MINUTES * 60)) * 60);
  for (let at = 0; at <= MINUTES * 60; at += SAMPLE_SECONDS) {
    seconds.push(at);
    bareSamples.push(rssMb(bare.pid));
    for (const { variant, server } of servers) samples.get(variant.name)!.push(rssMb(server.pid));
    if (at + SAMPLE_SECONDS <= MINUTES * 60) await new Promise((resolve) => setTimeout(resolve, SAMPLE_SECONDS * 1000));
  }
  const cpu = new Map([["bare", idleCpu(bare.pid)], ...servers.map(({ variant, server }) => [variant.name, idleCpu(server.pid)] as const)]);
  await Promise.all([bare.stop(), ...servers.map(({ server }) => server.stop())]);

  const round = (mb: number) => Math.round(mb);
  console.log(`| setting | ${seconds.map((s) => `${s} s`).join(" | ")} | CPU, ms/min |   (VmRSS, MB; idle since healthy)`);
  console.log(`|---|${seconds.map(() => "---").join("|")}|---|`);
  console.log(`| bare Node server (the limit) | ${bareSamples.map(round).join(" | ")} | ${cpu.get("bare")} |`);
  for (const [name, values] of samples) console.log(`| ${name} | ${values.map(round).join(" | ")} | ${cpu.get(name)} |`);

  const last = (values: number[]) => values[values.length - 1]!;
  writeResult({
    benchmark: "idle-memory",
    loadAverage: load.finish(),
    limits: { bareNodeServerMb: round(last(bareSamples)), bareNodeServerCpuMsPerMinute: cpu.get("bare"), targetMb: TARGET_MB },
    figures: {
      seconds,
      variants: Object.fromEntries([...samples].map(([name, values]) => [name, values.map(round)])),
      cpuMsPerMinute: Object.fromEntries([...samples.keys()].map((name) => [name, cpu.get(name)])),
    },
    ratios: Object.fromEntries(
      [...samples].flatMap(([name, values]) => [
        [`${name}: target ÷ resident set at the end`, +(TARGET_MB / last(values)).toFixed(3)],
        [`${name}: bare server ÷ resident set at the end`, +(last(bareSamples) / last(values)).toFixed(3)],
      ]),
    ),
  });
} finally {
  rmSync(work, { recursive: true, force: true });
}
