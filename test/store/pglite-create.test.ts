import { describe, expect, it } from "vitest";
import { tieringBudgetGivenToNode } from "../../src/store/pglite-create.js";

describe("the WebAssembly tiering budget an embedded engine starts with", () => {
  it("is the operator's when Node was given one on its command line, in either spelling", () => {
    expect(tieringBudgetGivenToNode(["--wasm-tiering-budget=1800000"])).toBe(true);
    expect(tieringBudgetGivenToNode(["--enable-source-maps", "--wasm_tiering_budget", "1800000"])).toBe(true);
  });

  it("is the store's when Node was given none", () => {
    expect(tieringBudgetGivenToNode([])).toBe(false);
    expect(tieringBudgetGivenToNode(["--enable-source-maps", "--wasm-lazy-compilation", "--max-old-space-size=512"])).toBe(false);
    expect(tieringBudgetGivenToNode(["--wasm-tiering-budgets=1"])).toBe(false);
  });
});
