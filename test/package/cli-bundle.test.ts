import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, repoRoot, waitUntilHealthy } from "../helpers/processes.js";

/** Loaded on first use (an email, a passkey, a chain, DATABASE_URL, pretty logs, a secp256k1 key), never at start. */
const ON_FIRST_USE = /node_modules\/(viem|@ton\/core|nodemailer|@simplewebauthn|pg|pino-pretty|tiny-secp256k1)\//;

/**
 * The command as installed (bin/strongroom.js) runs the bundled CLI, dist/cli/strongroom.js: Strongroom's own modules
 * and most dependencies in one file, which Node loads far faster than the ~1,300 files it replaces.
 */
describe.skipIf(process.env.DATABASE_URL)("the bundled command line", () => {
  const dir = mkdtempSync(join(tmpdir(), "strongroom-bundle-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is built by the build", () => {
    const build = spawnSync(process.execPath, ["scripts/build-if-stale.mjs"], { cwd: repoRoot, encoding: "utf8", timeout: 300_000 });
    expect(build.status, build.stderr).toBe(0);
    const version = spawnSync(process.execPath, ["bin/strongroom.js", "--version"], { cwd: repoRoot, encoding: "utf8" });
    expect(version.stdout.trim()).toBe((JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string }).version);
    // ASCII only: a module's source stays in memory, at two bytes a character if any one needs more than one byte.
    for (const bundle of ["dist/cli/strongroom.js", "dist/testing/strongroom-testing.js"]) {
      const source = readFileSync(join(repoRoot, bundle), "utf8");
      expect(source.match(/[\u0080-\u{10ffff}]/gu), bundle).toBeNull();
    }
  }, 300_000);

  it("serves a new data directory, the console and the frames, loading few module files and none it needs only later", async () => {
    const port = await freePort();
    const modulesFile = join(dir, "modules.txt");
    // A template built at start (none found in the build) would be cached in the temporary directory.
    const temporary = join(dir, "tmp");
    mkdirSync(temporary);
    const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: "warn", RECORD_MODULES_FILE: modulesFile, TMPDIR: temporary };
    delete env.STRONGROOM_MASTER_KEY;
    const child = spawn(
      process.execPath,
      [
        "--import",
        "./test/helpers/record-modules.mjs",
        "bin/strongroom.js",
        "serve",
        "--data-dir",
        join(dir, "data"),
        "--port",
        String(port),
        "--auth-proxy-port",
        "off",
      ],
      { cwd: repoRoot, env, stdio: ["ignore", "ignore", "inherit"] },
    );
    try {
      const url = `http://127.0.0.1:${port}`;
      await waitUntilHealthy(url, child, 120_000);
      // Paths the server reads from the build resolve from the bundle as from the compiled modules.
      const consolePage = await fetch(`${url}/console/`);
      expect(consolePage.status).toBe(200);
      expect((await fetch(`${url}/frames/export.js`)).status).toBe(200);
      // The first start created the root organization from the template the build ships: it built none of its own.
      expect(JSON.parse(readFileSync(join(dir, "data", "initial-credentials.json"), "utf8"))).toHaveProperty("apiPrivateKey");
      expect(readdirSync(temporary)).toEqual([]);

      const loaded = readFileSync(modulesFile, "utf8").split("\n").filter(Boolean);
      const strongroomModules = loaded.filter((url) => !url.includes("/node_modules/") && url.startsWith("file:"));
      expect(strongroomModules).toEqual([
        expect.stringMatching(/\/bin\/strongroom\.js$/),
        expect.stringMatching(/\/dist\/cli\/strongroom\.js$/),
      ]);
      expect(loaded.filter((url) => ON_FIRST_USE.test(url))).toEqual([]);
      expect(loaded.length).toBeLessThan(150);
    } finally {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    }
  }, 180_000);
});
