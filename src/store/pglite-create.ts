import { PGlite, type PGliteOptions } from "@electric-sql/pglite";
import { open } from "node:fs/promises";
import { createRequire } from "node:module";
import { setFlagsFromString } from "node:v8";

/**
 * V8 runs PGlite's engine (PostgreSQL compiled to WebAssembly) on its baseline compiler first and recompiles a function
 * with its optimizing compiler once the function has run for its "tiering budget". Opening a store runs much of
 * PostgreSQL once (recovery, the catalog caches, the first plans): with V8's budget, hundreds of functions that the
 * requests after it rarely need are optimized at every start, about half of a start's CPU time and 90 MB of resident
 * memory (bench/README.md, "Start-up time and memory"). With a budget near the largest V8 takes, a function is optimized
 * only once it has run for long, as under a load: paired against V8's budget, the same latency under load and at most
 * about 10 % more CPU per request.
 *
 * The budget is V8's, for the whole process, and read as the engine's module is compiled; it is raised before that and
 * stays so. A `--wasm-tiering-budget` given to Node on its command line is left as given (Node refuses V8's flags in
 * NODE_OPTIONS).
 */
export const STORE_WASM_TIERING_BUDGET = 2_000_000_000;

let budgetChosen = false;

/** Whether Node was given its own tiering budget, which then stands. */
export function tieringBudgetGivenToNode(execArgv: readonly string[]): boolean {
  return execArgv.some((arg) => /^--wasm[-_]tiering[-_]budget(=|$)/.test(arg));
}

function chooseTieringBudget(): void {
  if (budgetChosen) return;
  budgetChosen = true;
  if (tieringBudgetGivenToNode(process.execArgv)) return;
  setFlagsFromString(`--wasm-tiering-budget=${STORE_WASM_TIERING_BUDGET}`);
}

/** WebAssembly's pages are 64 KiB. */
const WASM_PAGE_BYTES = 65_536;

/**
 * The engine's bytes, read into a buffer V8 maps and unmaps itself, not one from malloc as `readFile`'s would be.
 *
 * Left to itself, PGlite reads its 9 MB module with `readFile` and drops the buffer once compiled (V8 keeps its own
 * copy). glibc serves a buffer that large with an mmap of its own, and freeing such a chunk raises malloc's mmap
 * threshold to its size and its trim threshold to twice that, for the rest of the process: from then on malloc
 * keeps up to 18 MB of freed memory in every arena rather than return it, and the background compiler's arena stays
 * resident once V8 has recompiled the engine's busiest functions. A WebAssembly memory is allocated and released by
 * V8's page allocator, so its release leaves malloc's thresholds alone: 13–14 MB less resident when idle
 * (bench/README.md, "malloc's thresholds").
 */
export async function readEngineBytes(): Promise<Uint8Array<ArrayBuffer>> {
  const path = createRequire(import.meta.url).resolve("@electric-sql/pglite/pglite.wasm");
  const file = await open(path);
  try {
    const { size } = await file.stat();
    const bytes = new Uint8Array(new WebAssembly.Memory({ initial: Math.ceil(size / WASM_PAGE_BYTES) }).buffer, 0, size);
    for (let at = 0; at < size;) {
      const { bytesRead } = await file.read(bytes, at, size - at, at);
      if (bytesRead === 0) throw new Error(`${path} ended at ${at} of its ${size} bytes`);
      at += bytesRead;
    }
    return bytes;
  } finally {
    await file.close();
  }
}

/** The engine's module, compiled once per process (as PGlite itself would) for every engine it starts. */
let engineModule: Promise<WebAssembly.Module> | undefined;
function compiledEngine(): Promise<WebAssembly.Module> {
  chooseTieringBudget();
  return (engineModule ??= readEngineBytes().then((bytes) => WebAssembly.compile(bytes)));
}

/**
 * Starts compiling the engine's module, if no engine has yet, while the caller prepares what the engine will open (a
 * data directory's lock, the template). A failure is the first `createPglite`'s to report.
 */
export function startCompilingEngine(): void {
  compiledEngine().catch(() => {});
}

/** `PGlite.create` with the compiled engine: every embedded engine starts here. */
export function createPglite(options?: PGliteOptions): Promise<PGlite>;
export function createPglite(dataDir: string, options?: PGliteOptions): Promise<PGlite>;
export async function createPglite(dataDirOrOptions?: string | PGliteOptions, options?: PGliteOptions): Promise<PGlite> {
  const pgliteWasmModule = await compiledEngine();
  return typeof dataDirOrOptions === "string"
    ? PGlite.create(dataDirOrOptions, { ...options, pgliteWasmModule })
    : PGlite.create({ ...dataDirOrOptions, pgliteWasmModule });
}
