#!/usr/bin/env node
// Compiles src/ to dist/ only when dist/ is missing or older than a source file, and only when the
// TypeScript compiler is installed: `npm start` then starts at once, and `npm ci --omit=dev` (no
// compiler) does not fail here — a packed tarball or an image already carries dist/.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const stamp = join(root, "dist", "cli", "main.js");
const bundle = join(root, "dist", "cli", "strongroom.js");

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const sources = join(root, "src");
if (!existsSync(sources)) process.exit(0); // an installed package: dist/ is all there is
const fresh =
  existsSync(stamp) &&
  existsSync(bundle) &&
  statSync(bundle).mtimeMs >= statSync(stamp).mtimeMs &&
  existsSync(join(root, "dist", "browser-frames", "import.js")) &&
  existsSync(join(root, "dist", "console", "index.html")) &&
  existsSync(join(root, "dist", "store", "pglite-template")) &&
  statSync(stamp).mtimeMs >=
    Math.max(newestSource(sources), newestSource(join(root, "console")), statSync(join(root, "tsconfig.build.json")).mtimeMs);
if (fresh && !process.argv.includes("--force")) process.exit(0);

let tsc;
try {
  tsc = createRequire(join(root, "package.json")).resolve("typescript/bin/tsc");
} catch {
  process.stderr.write(
    existsSync(stamp)
      ? "strongroom: dist/ is older than src/ and TypeScript is not installed; using dist/ as it is\n"
      : "strongroom: dist/ is missing and TypeScript is not installed: install the dev dependencies and run `npm run build`\n",
  );
  process.exit(0);
}
// Said on stderr, step by step: a first build takes a minute or two, and `npm install` shows this output (the
// repository's .npmrc sets foreground-scripts) instead of a silent spinner.
const say = (text) => process.stderr.write(`strongroom: ${text}\n`);
const started = Date.now();
say("building dist/ (once after a clone or a change; about a minute): 1/5 compiling src/ with TypeScript…");
const run = spawnSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json")], { stdio: "inherit" });
if (run.status !== 0) process.exit(run.status ?? 1);
// The command line and the test kit, each in one file (esbuild); the browser parts: the export and import frames (esbuild) and the console (Vite);
// then the embedded store's template.
const parts = [
  ["build-node-bundles.mjs", "2/5 bundling the command line and the test kit (esbuild)…"],
  ["build-frames.mjs", "3/5 bundling the export and import pages (esbuild)…"],
  ["build-console.mjs", "4/5 building the web console (Vite)…"],
  ["build-pglite-template.mjs", "5/5 preparing the embedded store's migrated template (PGlite)…"],
];
for (const [script, what] of parts) {
  say(what);
  const built = spawnSync(process.execPath, [join(root, "scripts", script)], { stdio: "inherit" });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
say(`dist/ built in ${Math.round((Date.now() - started) / 1000)} s`);
