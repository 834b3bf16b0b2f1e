import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { strongroom } from "./operator.js";

describe("strongroom --version", () => {
  it("prints the version of package.json", { timeout: 120_000 }, () => {
    const { version } = JSON.parse(readFileSync(join(import.meta.dirname, "../../package.json"), "utf8")) as { version: string };
    const run = strongroom(["--version"]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(version);
  });
});
