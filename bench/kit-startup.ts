/**
 * Start-up time of the test kit: `startStrongroom()` then `close()`, several times in one process, from this
 * checkout's sources. Three situations, each in a process of its own:
 *   cold  — no template cached on disk: the first start creates and migrates a store (and caches the template),
 *           the later ones load the template from the process's memory;
 *   disk  — a new process with the template cached on disk: the first start reads the file, the later ones memory;
 *   built — the compiled kit (dist/testing, what `strongroom/testing` resolves to; run `npm run build` first), with no
 *           template cached: the first start reads the one the build shipped (dist/store/pglite-template/).
 * Time is from the call to `startStrongroom()` resolving; `close()` is timed apart. The module load (the server's
 * code, several seconds) is before the first start and is reported on its own line.
 *
 *   npx tsx bench/kit-startup.ts            (BENCH_RUNS=8 starts per process by default; BENCH_KIT_DIST=<dist/> for another build)
 */
import { spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadAverageSampler } from "./support.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 8);
/** The build the "built" process measures: this checkout's dist/, or BENCH_KIT_DIST (another build's dist/, to compare). */
const BUILT = resolve(process.env.BENCH_KIT_DIST ?? join(import.meta.dirname, "..", "dist"));
/** What `strongroom/testing` resolves to in that build: the bundled kit, or (builds before it) the compiled modules. */
const BUILT_KIT = ["strongroom-testing.js", "index.js"].map((file) => join(BUILT, "testing", file)).find((path) => existsSync(path))!;

interface ChildResult {
  importMs: number;
  startMs: number[];
  /** The process's CPU time (all threads) during each start: steadier than wall time on a shared machine. */
  startCpuMs: number[];
  closeMs: number[];
}

async function child(built: boolean): Promise<void> {
  const loading = performance.now();
  const { startStrongroom } = (await import(built ? BUILT_KIT : "../src/testing/index.js")) as typeof import("../src/testing/index.js");
  const importMs = performance.now() - loading;
  const startMs: number[] = [];
  const startCpuMs: number[] = [];
  const closeMs: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const strongroom = await startStrongroom();
    startMs.push(performance.now() - started);
    const used = process.cpuUsage(cpu);
    startCpuMs.push((used.user + used.system) / 1000);
    const closing = performance.now();
    await strongroom.close();
    closeMs.push(performance.now() - closing);
  }
  process.stdout.write(`${JSON.stringify({ importMs, startMs, startCpuMs, closeMs } satisfies ChildResult)}\n`);
}

function runChild(built = false): ChildResult {
  const result = spawnSync(process.execPath, [...process.execArgv, import.meta.filename, built ? "--child-built" : "--child"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (result.status !== 0) throw new Error(`the benchmark's child process exited with ${result.status}`);
  return JSON.parse(result.stdout.trim().split("\n").at(-1)!) as ChildResult;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const summary = (values: number[]) =>
  values.length === 1
    ? values[0]!.toFixed(0)
    : `${median(values).toFixed(0)} (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`;

async function main(): Promise<void> {
  const { defaultTemplateCacheDir, templateCacheKey } = await import("../src/store/pglite-template.js");
  rmSync(join(defaultTemplateCacheDir(), templateCacheKey()), { force: true });
  const load = loadAverageSampler();
  const cold = runChild();
  const disk = runChild();
  rmSync(join(defaultTemplateCacheDir(), templateCacheKey()), { force: true });
  const built = runChild(true);
  console.log(
    `| process | module load, ms | first start, ms (CPU ms) | later starts, ms | later starts, CPU ms | close, ms |   (later: median (min–max) of ${RUNS - 1})`,
  );
  console.log("|---|---|---|---|---|---|");
  // The child processes run synchronously, so the sampler's timer never fires: the load before and after is what there is.
  const { before, after } = load.finish();
  console.log(`load average (1 min): ${before} before, ${after} after`);
  for (const [name, result] of [
    ["cold (no template on disk)", cold],
    ["new process, template on disk", disk],
    ["built kit (dist/, as strongroom/testing), template shipped by the build, none cached", built],
  ] as const) {
    console.log(
      `| ${name} | ${result.importMs.toFixed(0)} | ${result.startMs[0]!.toFixed(0)} (${result.startCpuMs[0]!.toFixed(0)}) | ${summary(result.startMs.slice(1))} | ${summary(result.startCpuMs.slice(1))} | ${summary(result.closeMs)} |`,
    );
  }
}

await (process.argv.includes("--child") ? child(false) : process.argv.includes("--child-built") ? child(true) : main());
