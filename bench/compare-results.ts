import type { BenchResult } from "./support.js";

/** How far a ratio may fall between two runs before it counts as a regression (10 %). */
export const REGRESSION_THRESHOLD = 0.1;

export interface RatioComparison {
  name: string;
  before?: number;
  after?: number;
  /** after ÷ before − 1; undefined when the ratio is in only one run. */
  change?: number;
  regressed: boolean;
}

export interface Comparison {
  ratios: RatioComparison[];
  /** Why the two runs may not be comparable (another benchmark, machine or Node), to print beside the table. */
  warnings: string[];
  regressions: number;
}

/**
 * Compares two runs' ratios to their same-run limits (every ratio is oriented so that higher is better): a ratio
 * that fell by more than `threshold` is a regression. A ratio present in one run only is listed, never counted.
 */
export function compareResults(before: BenchResult, after: BenchResult, threshold = REGRESSION_THRESHOLD): Comparison {
  const warnings: string[] = [];
  if (before.benchmark !== after.benchmark) warnings.push(`different benchmarks: ${before.benchmark} and ${after.benchmark}`);
  for (const field of ["cpu", "nproc", "node"] as const) {
    if (before.machine[field] !== after.machine[field])
      warnings.push(`different ${field}: ${String(before.machine[field])} and ${String(after.machine[field])}`);
  }
  const names = [...new Set([...Object.keys(before.ratios), ...Object.keys(after.ratios)])];
  const ratios = names.map((name): RatioComparison => {
    const a = before.ratios[name];
    const b = after.ratios[name];
    if (a === undefined || b === undefined || a <= 0) return { name, before: a, after: b, regressed: false };
    const change = b / a - 1;
    return { name, before: a, after: b, change, regressed: change < -threshold };
  });
  return { ratios, warnings, regressions: ratios.filter((r) => r.regressed).length };
}

/** The comparison as a table for a terminal: one ratio per line, regressions marked. */
export function formatComparison(before: BenchResult, after: BenchResult, comparison: Comparison): string {
  const describe = (run: BenchResult) =>
    `${run.commit} ${run.date} (load average ${run.loadAverage.before} before, ${run.loadAverage.whileMeasuring.mean} mean and ${run.loadAverage.whileMeasuring.max} max while measuring)`;
  const number = (value: number | undefined) => (value === undefined ? "—" : String(value));
  const lines = [`A: ${describe(before)}`, `B: ${describe(after)}`, ...comparison.warnings.map((w) => `warning: ${w}`), ""];
  for (const r of comparison.ratios) {
    const change = r.change === undefined ? "" : `${r.change >= 0 ? "+" : ""}${(r.change * 100).toFixed(1)} %`;
    lines.push(`${r.regressed ? "REGRESSED " : "          "}${r.name}: ${number(r.before)} → ${number(r.after)} ${change}`);
  }
  lines.push(
    "",
    comparison.regressions === 0
      ? `no ratio fell more than ${REGRESSION_THRESHOLD * 100} %`
      : `${comparison.regressions} ratio(s) fell more than ${REGRESSION_THRESHOLD * 100} %`,
  );
  return lines.join("\n");
}
