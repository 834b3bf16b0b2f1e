import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withGeneratedTables } from "../../src/server/readme-tables.js";

describe("README", () => {
  const readme = readFileSync(join(import.meta.dirname, "../../README.md"), "utf8");

  it("starts with the install, start and test commands", () => {
    const head = readme.split("\n").slice(0, 8).join("\n");
    for (const command of ["npm install", "npm start", "npm test"]) expect(head).toContain(command);
  });

  it("lists exactly the operations and address formats the code serves (run `npm run docs` after adding one)", () => {
    expect(readme).toBe(withGeneratedTables(readme));
  });
});
