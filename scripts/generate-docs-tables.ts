import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GENERATED_PAGES, withGeneratedTables } from "../src/server/docs-tables.js";

for (const page of GENERATED_PAGES) {
  const path = join(import.meta.dirname, "..", page);
  writeFileSync(path, withGeneratedTables(page, readFileSync(path, "utf8")));
  process.stdout.write(`${page}: generated tables updated\n`);
}
