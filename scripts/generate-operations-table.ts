import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { withOperationsTable } from "../src/server/operations-table.js";

const readmePath = join(import.meta.dirname, "..", "README.md");
writeFileSync(readmePath, withOperationsTable(readFileSync(readmePath, "utf8")));
process.stdout.write("README.md operations table updated\n");
