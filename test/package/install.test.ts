import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

/**
 * The package as a user gets it: `npm pack`, installed into an empty project with production dependencies
 * only, then `npx strongroom dev` and the README's SDK example run from there. Needs the npm registry (or a
 * warm npm cache); STRONGROOM_SKIP_INSTALL_TEST=1 skips it where neither is there.
 */
const repoRoot = join(import.meta.dirname, "../..");
const skip = process.env.STRONGROOM_SKIP_INSTALL_TEST === "1";
const npm = (args: string[], cwd: string, loglevel = "error") =>
  spawnSync("npm", [...args, "--no-audit", "--no-fund", "--prefer-offline", `--loglevel=${loglevel}`], {
    cwd,
    encoding: "utf8",
    timeout: 900_000,
  });

/** The README's example, exactly as printed under its marker. */
function readmeExample(): string {
  const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
  const marker = readme.indexOf("<!-- readme-example:");
  const start = readme.indexOf("```js\n", marker) + "```js\n".length;
  return readme.slice(start, readme.indexOf("```\n", start));
}

describe.skipIf(skip)("the packed package", () => {
  const project = mkdtempSync(join(tmpdir(), "strongroom-install-"));
  let dev: ChildProcess | undefined;
  afterAll(() => {
    dev?.kill("SIGKILL");
    rmSync(project, { recursive: true, force: true });
  });

  it("installs with production dependencies only, and `npx strongroom dev` serves; the README example runs against it", async () => {
    const build = spawnSync(process.execPath, ["scripts/build-if-stale.mjs"], { cwd: repoRoot, encoding: "utf8", timeout: 300_000 });
    expect(build.status, build.stderr).toBe(0);
    const pack = npm(["pack", "--ignore-scripts", "--pack-destination", project], repoRoot);
    expect(pack.status, pack.stderr).toBe(0);
    const tarball = pack.stdout.trim().split("\n").pop()!;

    const sdk = (name: string) =>
      (JSON.parse(readFileSync(join(repoRoot, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "a-project", private: true }));
    const install = npm(
      [
        "install",
        "--omit=dev",
        join(project, tarball),
        `@turnkey/sdk-server@${sdk("@turnkey/sdk-server")}`,
        `@turnkey/crypto@${sdk("@turnkey/crypto")}`,
      ],
      project,
      "warn",
    );
    expect(install.status, install.stderr).toBe(0);
    // Node 20 is supported: no dependency of the package asks for a newer one (cookie 2 did, through light-my-request).
    expect(install.stderr).not.toContain("EBADENGINE");
    // Its lifecycle scripts (those npm runs by itself) name only files it ships.
    const installed = JSON.parse(readFileSync(join(project, "node_modules/strongroom/package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    const lifecycle = ["preinstall", "install", "postinstall", "prepare", "prestart", "start", "prepack", "postpack"];
    for (const script of lifecycle.flatMap((name) => installed.scripts[name] ?? [])) {
      for (const [file] of script.matchAll(/scripts\/[\w.-]+/g))
        expect(existsSync(join(project, "node_modules/strongroom", file)), file).toBe(true);
    }
    expect(readFileSync(join(project, "node_modules/strongroom/dist/testing/index.d.ts"), "utf8")).toContain("startStrongroom");

    // The installed command itself (what `npx strongroom` runs): npx does not pass SIGTERM on to it.
    dev = spawn(join(project, "node_modules/.bin/strongroom"), ["dev", "--port", "0", "--auth-proxy-port", "0"], { cwd: project });
    let env = "";
    dev.stdout!.on("data", (chunk: Buffer) => (env += chunk.toString()));
    const deadline = Date.now() + 240_000;
    while (!env.includes("AUTH_PROXY_CONFIG_ID=") && Date.now() < deadline && dev.exitCode === null)
      await new Promise((r) => setTimeout(r, 100));
    expect(env).toMatch(/^ORGANIZATION_ID=.+\nAPI_PUBLIC_KEY=.+\nAPI_PRIVATE_KEY=.+\nBASE_URL=http:\/\/127\.0\.0\.1:\d+\n/);
    const baseUrl = /BASE_URL=(.+)/.exec(env)![1]!;
    expect((await fetch(`${baseUrl}/health`)).status).toBe(200);
    // The export and import pages' bundled scripts travel in the package.
    for (const frame of ["export", "import"]) expect((await fetch(`${baseUrl}/frames/${frame}.js`)).status).toBe(200);
    // So does the console's build.
    const consolePage = await fetch(`${baseUrl}/console/`);
    expect(consolePage.status).toBe(200);
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(await consolePage.text())![1]!;
    expect((await fetch(`${baseUrl}${script}`)).status).toBe(200);

    writeFileSync(join(project, ".env"), env);
    writeFileSync(join(project, "example.mjs"), readmeExample());
    // --env-file does not override variables already set, and vitest sets BASE_URL: run as from a plain shell.
    const shellEnv = { ...process.env };
    for (const name of ["BASE_URL", "ORGANIZATION_ID", "API_PUBLIC_KEY", "API_PRIVATE_KEY", "STRONGROOM_DATA_DIR", "DATABASE_URL"])
      delete shellEnv[name];
    const example = spawnSync(process.execPath, ["--env-file=.env", "example.mjs"], {
      cwd: project,
      env: shellEnv,
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(example.status, example.stderr).toBe(0);
    expect(example.stdout).toContain("ACTIVITY_STATUS_COMPLETED");

    const kit = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        'const s = await (await import("strongroom/testing")).startStrongroom(); console.log(s.organizationId); await s.close();',
      ],
      { cwd: project, encoding: "utf8", timeout: 240_000 },
    );
    expect(kit.status, kit.stderr).toBe(0);
    expect(kit.stdout).toMatch(/^[0-9a-f-]{36}$/m);

    const exited = new Promise((resolve) => dev!.once("exit", resolve));
    dev.kill("SIGTERM");
    expect(await exited).toBe(0);

    // `npx strongroom serve` in the project: its first start creates the root organization and says where to sign in.
    const serve = spawn(join(project, "node_modules/.bin/strongroom"), ["serve", "--port", "0", "--auth-proxy-port", "off"], {
      cwd: project,
      env: { ...shellEnv, LOG_LEVEL: "info" }, // its data directory: ./.strongroom, the default
    });
    let log = "";
    serve.stdout!.on("data", (chunk: Buffer) => (log += chunk.toString()));
    const until = Date.now() + 240_000;
    while (!log.includes("first start") && Date.now() < until && serve.exitCode === null) await new Promise((r) => setTimeout(r, 100));
    expect(log).toMatch(/first start: created the root organization.*console\/ with its organizationId and apiPrivateKey/);
    const credentials = join(project, ".strongroom/initial-credentials.json");
    expect(statSync(credentials).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(credentials, "utf8"))).toHaveProperty("apiPrivateKey");
    const served = new Promise((resolve) => serve.once("exit", resolve));
    serve.kill("SIGTERM");
    expect(await served).toBe(0);
  }, 1_500_000);
});
