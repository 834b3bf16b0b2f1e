#!/usr/bin/env node
// Bundles the compiled command line and test kit, each with every module it imports (dependencies included), into
// one file: dist/cli/strongroom.js, which `strongroom` and `npm start` run, and dist/testing/strongroom-testing.js,
// which `strongroom/testing` resolves to. Node loads a module per file: the compiled server is about 1,300 of them (a
// third of them @sinclair/typebox's, one file per function), and loading them was most of the start-up time; one
// file loads in a fraction of it. Part of `npm run build`, after TypeScript.
import { build } from "esbuild";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Packages that stay outside the bundle, loaded from node_modules as before: those that read files beside their own
 * modules (PGlite's WASM and data files, tiny-secp256k1's WASM), native addons, and the optional ones loaded only when configured.
 */
const external = ["@electric-sql/pglite", "tiny-secp256k1", "fs-native-extensions", "pkcs11js", "@aws-sdk/client-kms"];

/**
 * What Strongroom's own modules load on first use — `import("pkg")`, or a `require` made with `createRequire` — stays
 * outside too, so that it is still loaded only when first used (nodemailer with the first email, @simplewebauthn with
 * the first passkey, viem and @ton/core with their chains, pg only with DATABASE_URL). test/package/cli-bundle.test.ts
 * checks that an embedded start loads none of them.
 */
const loadedOnFirstUse = {
  name: "loaded-on-first-use",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      args.kind === "dynamic-import" && args.importer.startsWith(join(root, "dist")) ? { path: args.path, external: true } : undefined,
    );
  },
};

export async function buildNodeBundles() {
  await build({
    entryPoints: {
      "cli/strongroom": join(root, "dist/cli/main.js"),
      "testing/strongroom-testing": join(root, "dist/testing/index.js"),
    },
    outdir: join(root, "dist"),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    external,
    plugins: [loadedOnFirstUse],
    // The CommonJS dependencies inside the bundle (Fastify, pino, …) call `require` for Node's own modules.
    banner: {
      js: 'import { createRequire as createRequireForBundle } from "node:module"; const require = createRequireForBundle(import.meta.url);',
    },
    sourcemap: "linked",
    legalComments: "none",
    charset: "ascii",
    logLevel: "warning",
  });
  for (const bundle of ["cli/strongroom.js", "testing/strongroom-testing.js"]) asciiOnly(join(root, "dist", bundle));
}

/**
 * A file of ASCII only: V8 keeps a module's source for as long as the module lives, one byte per character when every
 * character fits in one, two bytes each otherwise — about 4 MB more resident memory for the whole bundle. With
 * `charset: "ascii"` esbuild escapes every other character in the code (strings, regular expressions, identifiers),
 * which leaves them only in the comments it keeps: each becomes "?" there, as many as its UTF-16 units, so that the
 * source map's columns still hold.
 */
function asciiOnly(file) {
  const text = readFileSync(file, "utf8");
  const ascii = text.replace(/[\u0080-\u{10ffff}]/gu, (character) => "?".repeat(character.length));
  if (ascii !== text) writeFileSync(file, ascii);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildNodeBundles();
