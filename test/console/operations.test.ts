import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { OPERATIONS_MODULE_PATH, renderConsoleOperations } from "../../scripts/generate-console-operations.js";

const CONSOLE_SOURCES = join(import.meta.dirname, "../../console/src");

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : /\.tsx?$/.test(entry.name) ? [join(dir, entry.name)] : [],
  );

/** The console names operations as the server defines them: generated from the registry, never typed again by hand. */
describe("console: operations from the server's definitions", () => {
  it("has operations.generated.ts as the registry makes it now (run `npm run generate:console` after changing an operation)", async () => {
    expect(readFileSync(OPERATIONS_MODULE_PATH, "utf8")).toBe(await renderConsoleOperations());
  });

  it("spells no activity type anywhere else", () => {
    const retyped = sourceFiles(CONSOLE_SOURCES)
      .filter((file) => file !== OPERATIONS_MODULE_PATH)
      .flatMap((file) =>
        [...readFileSync(file, "utf8").matchAll(/ACTIVITY_TYPE_[A-Z0-9_]+/g)].map((m) => `${relative(CONSOLE_SOURCES, file)}: ${m[0]}`),
      );
    expect(retyped).toEqual([]);
  });
});
