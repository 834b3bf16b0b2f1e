#!/usr/bin/env node
// Builds the console (console/, React with Vite) into dist/console/, which the server serves at /console.
// Part of `npm run build` (and so of `npm install` through `prepare`); the console's browser tests build it first.
import react from "@vitejs/plugin-react";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { build } from "vite";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

export async function buildConsole() {
  await build({
    root: join(root, "console"),
    base: "/console/",
    configFile: false,
    logLevel: "warn",
    plugins: [react()],
    build: {
      outDir: join(root, "dist/console"),
      emptyOutDir: true,
      target: "es2022",
      sourcemap: false,
      reportCompressedSize: false,
      // No data: URIs: the console's Content-Security-Policy loads assets from its own origin only.
      assetsInlineLimit: 0,
      chunkSizeWarningLimit: 1500,
      rolldownOptions: { output: { strictExecutionOrder: true } },
    },
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildConsole();
