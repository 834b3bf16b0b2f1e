import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { withGeneratedTables } from "../src/server/readme-tables.js";

const readmePath = join(import.meta.dirname, "..", "README.md");
writeFileSync(readmePath, withGeneratedTables(readFileSync(readmePath, "utf8")));
process.stdout.write("README.md generated tables updated\n");
