import { generateP256KeyPair } from "@turnkey/crypto";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliEntry, embeddedCliEnv, repoRoot, runCli } from "../helpers/processes.js";

const work = mkdtempSync(join(tmpdir(), "sr-terminal-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** `strongroom dev` until it has printed its .env lines and `ready` matches its stderr; then SIGTERM. */
async function devRun(args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<{ stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...cliEntry, "dev", "--port", "0", "--auth-proxy-port", "off", ...args], {
    cwd: repoRoot,
    env: { ...embeddedCliEnv(), ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const deadline = Date.now() + 150_000;
  while (!ready.test(stderr) && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  child.kill("SIGTERM");
  await exited;
  return { stdout, stderr };
}

describe("the command line on a terminal and in a project", () => {
  it("--help lists every environment variable of the configuration table", () => {
    const help = runCli(["--help"], embeddedCliEnv()).stdout;
    const serveHelp = runCli(["serve", "--help"], embeddedCliEnv()).stdout;
    const page = readFileSync(join(repoRoot, "docs/operations.md"), "utf8");
    const table = page.slice(page.indexOf("| flag | environment |"), page.indexOf("### First start"));
    const documented = new Set(
      table
        .split("\n")
        .map((row) => row.split("|")[2] ?? "")
        .flatMap((cell) => [...cell.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!)),
    );
    expect(documented.size).toBeGreaterThan(40);
    for (const name of documented) {
      expect(help, name).toMatch(new RegExp(`\\b${name}\\b`));
      expect(serveHelp, name).toMatch(new RegExp(`\\b${name}\\b`));
    }
  });

  const hasScript = existsSync("/usr/bin/script");
  it.skipIf(!hasScript)(
    "logs readable lines on a terminal, JSON lines when piped or with LOG_FORMAT=json",
    async () => {
      /** `serve` on a terminal (script(1) gives it one) until it says it started; then SIGINT to its process group. */
      const serve = async (dataDir: string, env: NodeJS.ProcessEnv) => {
        // `timeout` ends the server if it never says so.
        const command = `timeout -s INT 120 ${process.execPath} --import tsx src/cli/main.ts serve --data-dir ${dataDir} --port 0 --auth-proxy-port off`;
        const child = spawn("script", ["-qec", command, "/dev/null"], {
          cwd: repoRoot,
          env: { ...embeddedCliEnv(), LOG_LEVEL: "info", ...env },
          detached: true,
        });
        let output = "";
        child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
        const exited = new Promise((resolve) => child.once("exit", resolve));
        while (!/started/.test(output) && child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
        if (child.exitCode === null) process.kill(-child.pid!, "SIGINT");
        await exited;
        return output.replace(/\x1b\[[0-9;]*m/g, ""); // eslint-disable-line no-control-regex
      };
      const pretty = await serve(join(work, "tty"), {});
      expect(pretty).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: Strongroom .* started: .*console: http:\/\/localhost:\d+\/console\//m);
      expect(pretty).not.toContain('{"level":30');
      const json = await serve(join(work, "tty-json"), { LOG_FORMAT: "json" });
      expect(json).toMatch(/^\{"level":30,.*"msg":"Strongroom .* started/m);
      // Piped (no terminal), as in every other test: JSON lines.
      const piped = runCli(["serve", "--data-dir", join(work, "bad"), "--port", "0"], { ...embeddedCliEnv(), LOG_FORMAT: "fancy" });
      expect(piped.status).toBe(1);
      expect(piped.stderr).toContain("LOG_FORMAT must be json, pretty or auto");
    },
    200_000,
  );

  it("dev --seed says what the seed created, so a fixture that created less than meant shows it", async () => {
    const seed = join(work, "seed.json");
    writeFileSync(
      seed,
      JSON.stringify({
        userTags: ["admins"],
        users: [{ userName: "alice" }, { userName: "bob" }],
        wallets: [{ walletName: "Main", accounts: [] }],
      }),
    );
    const { stdout, stderr } = await devRun(["--seed", seed], {}, /seeded|created nothing/);
    expect(stdout).toMatch(/^ORGANIZATION_ID=/);
    expect(stderr).toContain("strongroom dev: seeded 1 user tag (admins), 2 users (alice, bob), 1 wallet (Main)");
    expect(stderr).toMatch(/console: http:\/\/localhost:\d+\/console\//);

    const empty = join(work, "empty.json");
    writeFileSync(empty, "{}");
    expect((await devRun(["--seed", empty], {}, /created nothing/)).stderr).toContain("the seed file created nothing");
  }, 320_000);

  it("dev --env-prefix TURNKEY_ prints and reads the hosted service's variable names", async () => {
    const key = generateP256KeyPair();
    const organizationId = "0b7e3a52-5d3c-4f6e-9a1b-2c3d4e5f6a7b";
    const { stdout } = await devRun(
      ["--env-prefix", "TURNKEY_"],
      { TURNKEY_ORGANIZATION_ID: organizationId, TURNKEY_API_PRIVATE_KEY: key.privateKey, ORGANIZATION_ID: "ignored" },
      /serving on/,
    );
    const lines = Object.fromEntries(
      stdout
        .trim()
        .split("\n")
        .map((line) => line.split("=", 2) as [string, string]),
    );
    expect(Object.keys(lines).every((name) => name.startsWith("TURNKEY_"))).toBe(true);
    expect(lines).toMatchObject({ TURNKEY_ORGANIZATION_ID: organizationId, TURNKEY_API_PUBLIC_KEY: key.publicKey });
    expect(lines.TURNKEY_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  }, 200_000);
});
