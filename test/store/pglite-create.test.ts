import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createPglite, readEngineBytes, tieringBudgetGivenToNode } from "../../src/store/pglite-create.js";

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

describe("the embedded engine's module", () => {
  afterEach(() => vi.restoreAllMocks());

  it("is read whole, byte for byte PGlite's file", async () => {
    const file = readFileSync(createRequire(import.meta.url).resolve("@electric-sql/pglite/pglite.wasm"));
    const bytes = await readEngineBytes();
    expect(bytes.byteLength).toBe(file.byteLength);
    expect(Buffer.compare(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), file)).toBe(0);
  });

  it("is compiled once for all the engines a process starts, and each of them answers", async () => {
    const compile = vi.spyOn(WebAssembly, "compile");
    const engines = [await createPglite(), await createPglite()];
    try {
      expect(compile).toHaveBeenCalledTimes(1);
      for (const engine of engines)
        expect((await engine.query<{ answer: number }>("SELECT 6 * 7 AS answer")).rows).toEqual([{ answer: 42 }]);
    } finally {
      await Promise.all(engines.map((engine) => engine.close()));
    }
  });
});
