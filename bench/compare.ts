/**
 * Compares two benchmark result files (bench/results/*.json, written by every run): each ratio to a limit of the
 * same run, A then B, flagging every ratio that fell more than 10 %. Exits 1 when one did.
 *
 *   npm run bench:compare -- bench/results/load-….json bench/results/load-….json
 */
import { readFileSync } from "node:fs";
import { compareResults, formatComparison } from "./compare-results.js";
import type { BenchResult } from "./support.js";

const [beforePath, afterPath] = process.argv.slice(2);
if (!beforePath || !afterPath) {
  process.stderr.write("usage: npm run bench:compare -- <before.json> <after.json>\n");
  process.exit(2);
}
const read = (path: string) => JSON.parse(readFileSync(path, "utf8")) as BenchResult;
const before = read(beforePath);
const after = read(afterPath);
const comparison = compareResults(before, after);
process.stdout.write(`${formatComparison(before, after, comparison)}\n`);
process.exitCode = comparison.regressions > 0 ? 1 : 0;
