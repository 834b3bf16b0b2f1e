#!/usr/bin/env node
// Writes the migrated embedded-store template into dist/store/pglite-template/ (after tsc has built dist/), so that
// the first start of a new data directory, and every in-memory store, loads it instead of running PGlite's initdb
// and every migration (src/store/pglite-template.ts). Built afresh, never copied from a cache; any older template
// there (another schema or PGlite version) is removed. Skipped when the one for this schema is already there.
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = (path) => pathToFileURL(join(root, "dist", path)).href;
const { shippedTemplateDir, templateCacheKey, writeTemplateFile } = await import(dist("store/pglite-template.js"));
const { buildMigratedTemplate } = await import(dist("store/pglite.js"));

const dir = shippedTemplateDir();
const name = templateCacheKey();
if (existsSync(join(dir, name)) && !process.argv.includes("--force")) process.exit(0);
mkdirSync(dir, { recursive: true });
for (const old of readdirSync(dir)) if (old !== name) rmSync(join(dir, old), { force: true });
// Readable by every user: it is part of the installed code, like the modules beside it.
await writeTemplateFile(join(dir, name), await buildMigratedTemplate(), { level: 9, mode: 0o644 });
