import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/processes.js";

/** The chain libraries load on first use (src/crypto/chain-libraries.ts), not with the server's modules. */
const CHAIN_LIBRARY = /node_modules\/(viem|@solana\/kit|@solana\/rpc|@ton\/core)\//;
/** Needed only on PostgreSQL (pg, src/store/open.ts) or for pretty logs (pino-pretty, src/http/log-destination.ts). */
const OTHER_ON_DEMAND = /node_modules\/(pg|pino-pretty)\//;

/**
 * Imports the server's start-up module in a process of its own (from the sources, through tsx), then names every
 * chain-library file it loaded: ES modules as the module hooks saw them, CommonJS ones from require.cache. Then
 * loads viem and @solana/kit as their first use would, to show that the same count sees them.
 */
const SCRIPT = `
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
const loaded = () => [...readFileSync(process.env.RECORD_MODULES_FILE, "utf8").split("\\n"), ...Object.keys(createRequire(import.meta.url).cache)];
const seen = () => loaded().filter((name) => ${CHAIN_LIBRARY}.test(name));
await import("./src/server/start.ts");
const atStart = seen();
const othersAtStart = loaded().filter((name) => ${OTHER_ON_DEMAND}.test(name));
const libraries = await import("./src/crypto/chain-libraries.ts");
libraries.viem();
libraries.solanaKit();
console.log(JSON.stringify({ atStart, othersAtStart, afterFirstUse: seen().length }));
`;

// What loads does not depend on the store: run in the PGlite pass only.
describe.skipIf(process.env.DATABASE_URL)("start-up", () => {
  it("importing the server loads neither viem nor @solana/kit (nor @ton/core, pg or pino-pretty); their first use does", () => {
    const dir = mkdtempSync(join(tmpdir(), "strongroom-modules-"));
    try {
      const run = spawnSync(
        process.execPath,
        ["--import", "tsx", "--import", "./test/helpers/record-modules.mjs", "--input-type=module", "-e", SCRIPT],
        { cwd: repoRoot, env: { ...process.env, RECORD_MODULES_FILE: join(dir, "modules.txt") }, encoding: "utf8", timeout: 120_000 },
      );
      expect(run.status, run.stderr).toBe(0);
      const { atStart, othersAtStart, afterFirstUse } = JSON.parse(run.stdout.trim().split("\n").pop()!) as {
        atStart: string[];
        othersAtStart: string[];
        afterFirstUse: number;
      };
      expect(atStart).toEqual([]);
      expect(othersAtStart).toEqual([]);
      expect(afterFirstUse).toBeGreaterThan(100);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);
});
