import { PGlite, type PGliteOptions } from "@electric-sql/pglite";
import { setFlagsFromString } from "node:v8";

/**
 * V8 runs PGlite's engine (PostgreSQL compiled to WebAssembly) on its baseline compiler first and recompiles a function
 * with its optimizing compiler once the function has run for its "tiering budget". Opening a store runs much of
 * PostgreSQL once (recovery, the catalog caches, the first plans): with V8's budget, hundreds of functions that the
 * requests after it rarely need are optimized at every start, about half of a start's CPU time and 90 MB of resident
 * memory (bench/README.md, "Start-up time and memory"). With a budget near the largest V8 takes, a function is optimized
 * only once it runs for long, as under a load: the first seconds of a load run on baseline code, and from then on the
 * rate is as before.
 *
 * The budget is V8's, for the whole process, and read when an engine is created; it is raised before the first one and
 * stays so. A `--wasm-tiering-budget` given to Node (its command line or NODE_OPTIONS) is left as given.
 */
export const STORE_WASM_TIERING_BUDGET = 2_000_000_000;

let budgetChosen = false;

/** Whether Node was given its own tiering budget, which then stands. */
export function tieringBudgetGivenToNode(execArgv: readonly string[], nodeOptions: string): boolean {
  return [...execArgv, ...nodeOptions.split(/\s+/)].some((arg) => /^--wasm[-_]tiering[-_]budget(=|$)/.test(arg));
}

function chooseTieringBudget(): void {
  if (budgetChosen) return;
  budgetChosen = true;
  if (tieringBudgetGivenToNode(process.execArgv, process.env.NODE_OPTIONS ?? "")) return;
  setFlagsFromString(`--wasm-tiering-budget=${STORE_WASM_TIERING_BUDGET}`);
}

/** `PGlite.create`, after the process's tiering budget is chosen: every embedded engine starts here. */
export function createPglite(options?: PGliteOptions): Promise<PGlite>;
export function createPglite(dataDir: string, options?: PGliteOptions): Promise<PGlite>;
export function createPglite(dataDirOrOptions?: string | PGliteOptions, options?: PGliteOptions): Promise<PGlite> {
  chooseTieringBudget();
  return typeof dataDirOrOptions === "string" ? PGlite.create(dataDirOrOptions, options) : PGlite.create(dataDirOrOptions);
}
