import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareResults } from "../../bench/compare-results.js";
import type { BenchResult } from "../../bench/support.js";
import { repoRoot } from "../helpers/processes.js";

const fixture = (name: string) => join(import.meta.dirname, "fixtures", name);
const read = (name: string) => JSON.parse(readFileSync(fixture(name), "utf8")) as BenchResult;

describe("bench:compare", () => {
  it("flags each ratio that fell more than 10 %, and no other", () => {
    const comparison = compareResults(read("load-before.json"), read("load-regressed.json"));
    // 0.5 → 0.42 is −16 % and 0.3 → 0.2 −33 %; 0.4 → 0.38 (−5 %) and a rise are not; a ratio new in B is listed, not counted.
    expect(comparison.ratios.filter((r) => r.regressed).map((r) => r.name)).toEqual([
      "PGlite rename 1 conn: req/s ÷ one-row transaction",
      "PGlite sign 1 conn: curve floor ÷ p50",
    ]);
    expect(comparison.regressions).toBe(2);
    const added = comparison.ratios.find((r) => r.name === "PGlite wallet 1 conn: req/s ÷ bare route");
    expect(added).toMatchObject({ before: undefined, after: 0.03, regressed: false });
    expect(comparison.warnings).toEqual([]);
  });

  it("passes a run whose ratios each fell by 10 % or less", () => {
    const comparison = compareResults(read("load-before.json"), read("load-steady.json"));
    // Steepest fall: 0.5 → 0.46, −8 %.
    expect(comparison.regressions).toBe(0);
    expect(Math.min(...comparison.ratios.map((r) => r.change!))).toBeCloseTo(-0.08, 5);
  });

  it("says when the runs were on different machines", () => {
    const other = { ...read("load-steady.json"), machine: { cpu: "Intel Xeon", nproc: 4, node: "v22.1.0" } };
    expect(compareResults(read("load-before.json"), other).warnings).toEqual([
      "different cpu: AMD EPYC and Intel Xeon",
      "different nproc: 2 and 4",
      "different node: v20.20.2 and v22.1.0",
    ]);
  });

  it("exits 1 on a regression and 0 without one (npm run bench:compare)", () => {
    const run = (after: string) =>
      spawnSync(process.execPath, ["--import", "tsx", "bench/compare.ts", fixture("load-before.json"), fixture(after)], {
        cwd: repoRoot,
        encoding: "utf8",
        timeout: 120_000,
      });
    const regressed = run("load-regressed.json");
    expect(regressed.status).toBe(1);
    expect(regressed.stdout).toMatch(/REGRESSED +PGlite rename 1 conn: req\/s ÷ one-row transaction: 0\.5 → 0\.42 -16\.0 %/);
    expect(regressed.stdout).toContain("2 ratio(s) fell more than 10 %");
    const steady = run("load-steady.json");
    expect(steady.status).toBe(0);
    expect(steady.stdout).not.toContain("REGRESSED");
  }, 120_000);
});
