import { generateP256KeyPair } from "@turnkey/crypto";
import { Turnkey } from "@turnkey/sdk-server";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliEntry, embeddedCliEnv, repoRoot, runCli } from "../helpers/processes.js";

/** The CLI always runs embedded here: DATABASE_URL and the master key come only from each test. */
const baseEnv = embeddedCliEnv;
const cli = (args: string[], env: NodeJS.ProcessEnv = baseEnv()) => runCli(args, env);

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const port = (probe.address() as { port: number }).port;
      probe.close(() => resolve(port));
    });
  });
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

describe("the strongroom CLI", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "strongroom-cli-"));
  let serve: ChildProcess | undefined;
  afterAll(() => {
    serve?.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  });

  let init: Record<string, string>;

  it("init prints the new organization, user and key as one JSON object", () => {
    const run = cli(["init", "--data-dir", dataDir]);
    expect(run.status, run.stderr).toBe(0);
    init = JSON.parse(run.stdout) as Record<string, string>;
    expect(Object.keys(init).sort()).toEqual(["apiKeyId", "apiPrivateKey", "apiPublicKey", "organizationId", "signerPublicKey", "userId"]);
    expect(init.apiPublicKey).toMatch(/^0[23][0-9a-f]{64}$/);
    expect(init.signerPublicKey).toMatch(/^04[0-9a-f]{128}$/);
  }, 120_000); // processes loading the sources, on a possibly loaded machine

  it("keeps the key-encryption key in a 0600 file and no plaintext private key in the store", () => {
    expect(statSync(join(dataDir, "master.key")).mode & 0o777).toBe(0o600);
    const run = cli(["keys", "--data-dir", dataDir]);
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ signerPublicKey: init.signerPublicKey });
    const apiPrivate = Buffer.from(init.apiPrivateKey!, "utf8");
    for (const file of filesUnder(join(dataDir, "pgdata"))) {
      expect(readFileSync(file).includes(apiPrivate)).toBe(false);
    }
  }, 120_000); // processes loading the sources, on a possibly loaded machine

  it("init --api-public-key registers the caller's key and prints no private key; a bad key is refused", () => {
    const own = generateP256KeyPair();
    const run = cli(["init", "--data-dir", dataDir, "--api-public-key", own.publicKey]);
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as Record<string, string>;
    expect(result.apiPublicKey).toBe(own.publicKey);
    expect(result).not.toHaveProperty("apiPrivateKey");

    const bad = cli(["init", "--data-dir", dataDir, "--api-public-key", "02" + "ff".repeat(32)]);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain("compressed P-256 public key");
  }, 120_000); // processes loading the sources, on a possibly loaded machine

  it("serves the API, and a second process on the same data directory is refused without harm", async () => {
    const port = await freePort();
    serve = spawn(process.execPath, [...cliEntry, "serve", "--data-dir", dataDir, "--port", String(port), "--auth-proxy-port", "0"], {
      cwd: repoRoot,
      env: baseEnv(),
    });
    const url = `http://127.0.0.1:${port}`;
    // Generous: on a loaded two-core machine loading the sources alone can take tens of seconds.
    for (let i = 0; i < 600; i++) {
      const ok = await fetch(`${url}/health`)
        .then((r) => r.ok)
        .catch(() => false);
      if (ok) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const client = () =>
      new Turnkey({
        apiBaseUrl: url,
        apiPublicKey: init.apiPublicKey!,
        apiPrivateKey: init.apiPrivateKey!,
        defaultOrganizationId: init.organizationId!,
      }).apiClient();
    expect((await client().getWhoami({})).userId).toBe(init.userId);

    const second = cli(["keys", "--data-dir", dataDir]);
    expect(second.status).not.toBe(0);
    expect(second.stderr).toContain(dataDir);
    expect(second.stderr).toContain("in use");
    expect((await client().getWhoami({})).organizationId).toBe(init.organizationId);
  }, 240_000);

  it("explains each command in --help", () => {
    for (const command of ["serve", "init", "keys"]) {
      const run = cli([command, "--help"]);
      expect(run.status).toBe(0);
      expect(run.stdout).toContain("--data-dir");
    }
    expect(cli(["--help"]).stdout).toMatch(/serve[\s\S]*init[\s\S]*keys/);
  }, 240_000); // four processes, each loading the sources

  it("refuses DATABASE_URL without STRONGROOM_MASTER_KEY", () => {
    const run = cli(["keys"], { ...baseEnv(), DATABASE_URL: "postgres://postgres@127.0.0.1:5432/test" });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("STRONGROOM_MASTER_KEY is required");
  }, 120_000); // processes loading the sources, on a possibly loaded machine
});
