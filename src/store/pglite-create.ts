import { PGlite, type PGliteOptions } from "@electric-sql/pglite";
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
 * The budget is V8's, for the whole process, and read when an engine is created; it is raised before the first one and
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

/** `PGlite.create`, after the process's tiering budget is chosen: every embedded engine starts here. */
export function createPglite(options?: PGliteOptions): Promise<PGlite>;
export function createPglite(dataDir: string, options?: PGliteOptions): Promise<PGlite>;
export function createPglite(dataDirOrOptions?: string | PGliteOptions, options?: PGliteOptions): Promise<PGlite> {
  chooseTieringBudget();
  return typeof dataDirOrOptions === "string" ? PGlite.create(dataDirOrOptions, options) : PGlite.create(dataDirOrOptions);
}
