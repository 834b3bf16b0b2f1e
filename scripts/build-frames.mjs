#!/usr/bin/env node
// Bundles the export and import frames' browser code (src/frames/browser) into dist/browser-frames/, which the
// server's /frames routes serve. Part of `npm run build`; the test suite runs it once before the tests.
import { build } from "esbuild";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

export async function buildFrames() {
  await build({
    entryPoints: {
      export: join(root, "src/frames/browser/export-frame.ts"),
      import: join(root, "src/frames/browser/import-frame.ts"),
    },
    outdir: join(root, "dist/browser-frames"),
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    legalComments: "none",
    logLevel: "warning",
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildFrames();
