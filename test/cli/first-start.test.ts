import { Turnkey } from "@turnkey/sdk-server";
import { generateP256KeyPair } from "@turnkey/crypto";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freshPostgresDatabase } from "../helpers/postgres-database.js";
import { cliEntry, embeddedCliEnv, freePort, repoRoot, runCli, waitUntilHealthy } from "../helpers/processes.js";

interface Credentials {
  organizationId: string;
  userId: string;
  apiKeyId: string;
  apiPublicKey: string;
  apiPrivateKey: string;
  signerPublicKey: string;
}

/** `strongroom serve` as a user starts it, its log (JSON lines: stdout is not a terminal) collected. */
async function serve(dataDir: string, extra: string[] = []) {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [...cliEntry, "serve", "--data-dir", dataDir, "--port", String(port), "--auth-proxy-port", "off", ...extra],
    { cwd: repoRoot, env: { ...embeddedCliEnv(), LOG_LEVEL: "info" } },
  );
  let log = "";
  child.stdout!.on("data", (chunk: Buffer) => (log += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (log += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  // Polled often, so that an answer given before the first start has written its credentials would be seen.
  await waitUntilHealthy(url, child, 120_000, 2);
  const credentialsWhenHealthy = existsSync(join(dataDir, "initial-credentials.json"));
  return {
    url,
    port,
    child,
    /** Whether initial-credentials.json existed when /health first answered 200. */
    credentialsWhenHealthy,
    /** The log lines so far, parsed. */
    lines: () =>
      log
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { msg: string; [key: string]: unknown }),
    /** Waits for a log line whose message matches (the first start's lines come once it listens). */
    async line(pattern: RegExp) {
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        const found = this.lines().find((l) => pattern.test(l.msg));
        if (found) return found;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`no log line matching ${pattern}:\n${log}`);
    },
    async stop(): Promise<number | null> {
      if (child.exitCode !== null) return child.exitCode;
      const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      return exited;
    },
  };
}

const client = (url: string, credentials: Credentials) =>
  new Turnkey({
    apiBaseUrl: url,
    apiPublicKey: credentials.apiPublicKey,
    apiPrivateKey: credentials.apiPrivateKey,
    defaultOrganizationId: credentials.organizationId,
  }).apiClient();

describe("the first start of an empty data directory", () => {
  const root = mkdtempSync(join(tmpdir(), "sr-first-"));
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) child.kill("SIGKILL");
    rmSync(root, { recursive: true, force: true });
  });

  it("creates the root organization, writes its credentials to initial-credentials.json (0600) and logs the file and the console's address", async () => {
    const dataDir = join(root, "data");
    const server = await serve(dataDir);
    children.push(server.child);
    const file = join(dataDir, "initial-credentials.json");
    // Once /health answers, the credentials are there: a script that waits for it may read them at once.
    expect(server.credentialsWhenHealthy).toBe(true);
    const created = await server.line(/first start: created the root organization/);
    expect(created.initialCredentials).toBe(file);
    expect(created.msg).toContain(`http://localhost:${server.port}/console/`);
    const started = await server.line(/started/);
    expect(started.console).toBe(`http://localhost:${server.port}/console/`);
    expect(started.msg).toContain(`console: http://localhost:${server.port}/console/`);

    expect(statSync(file).mode & 0o777).toBe(0o600);
    const credentials = JSON.parse(readFileSync(file, "utf8")) as Credentials;
    expect(Object.keys(credentials).sort()).toEqual(
      ["apiKeyId", "apiPrivateKey", "apiPublicKey", "organizationId", "signerPublicKey", "userId"].sort(),
    );
    // The log names the file; it never holds the key.
    expect(JSON.stringify(server.lines())).not.toContain(credentials.apiPrivateKey);
    const whoami = await client(server.url, credentials).getWhoami({});
    expect(whoami).toMatchObject({ organizationId: credentials.organizationId, userId: credentials.userId });

    // GET / leads a browser to the console.
    const home = await fetch(`${server.url}/`, { redirect: "manual" });
    expect(home.status).toBe(302);
    expect(home.headers.get("location")).toBe("/console/");

    // `init` works while the server holds the embedded store: it asks the server through the control socket.
    const more = runCli(["init", "--data-dir", dataDir, "--organization-name", "Second tenant"], embeddedCliEnv());
    expect(more.status, more.stderr).toBe(0);
    const second = JSON.parse(more.stdout) as Credentials;
    expect(second.organizationId).not.toBe(credentials.organizationId);
    expect(second.signerPublicKey).toBe(credentials.signerPublicKey);
    expect((await client(server.url, second).getWhoami({})).organizationName).toBe("Second tenant");
    // Bad input through the socket is refused with the same message, and nothing is created.
    const bad = runCli(["init", "--data-dir", dataDir, "--api-public-key", "02" + "ff".repeat(32)], embeddedCliEnv());
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("compressed P-256 public key");
    // Its own key registered: no private key printed.
    const own = generateP256KeyPair();
    const withKey = runCli(["init", "--data-dir", dataDir, "--api-public-key", own.publicKey], embeddedCliEnv());
    expect(withKey.status, withKey.stderr).toBe(0);
    expect(JSON.parse(withKey.stdout)).not.toHaveProperty("apiPrivateKey");

    expect(await server.stop()).toBe(0);
    expect(existsSync(join(dataDir, "control.sock"))).toBe(false);

    // A later start finds the organizations: it creates nothing and writes no file.
    rmSync(file);
    const again = await serve(dataDir);
    children.push(again.child);
    await again.line(/started/);
    expect((await client(again.url, credentials).getWhoami({})).organizationId).toBe(credentials.organizationId);
    expect(existsSync(file)).toBe(false);
    expect(again.lines().some((l) => /first start/.test(l.msg))).toBe(false);
    expect(await again.stop()).toBe(0);
  }, 400_000);

  it("--no-init leaves the store empty and says how to create an organization", async () => {
    const dataDir = join(root, "no-init");
    const server = await serve(dataDir, ["--no-init"]);
    children.push(server.child);
    const warning = await server.line(/no organization yet/);
    expect(warning.msg).toContain("strongroom init");
    expect(existsSync(join(dataDir, "initial-credentials.json"))).toBe(false);
    expect(await server.stop()).toBe(0);
  }, 300_000);

  it("compose's one-shot init: --if-empty --output writes the credentials once (0600), secrets read from *_FILE", async () => {
    const postgres = process.env.DATABASE_URL ? await freshPostgresDatabase(process.env.DATABASE_URL) : undefined;
    try {
      const secrets = join(root, "secrets");
      mkdirSync(secrets, { recursive: true });
      writeFileSync(join(secrets, "master-key"), randomBytes(32).toString("hex") + "\n", { mode: 0o600 });
      const env: NodeJS.ProcessEnv = { ...embeddedCliEnv(), STRONGROOM_MASTER_KEY_FILE: join(secrets, "master-key") };
      if (postgres) {
        writeFileSync(join(secrets, "database-url"), postgres.url, { mode: 0o600 });
        env.DATABASE_URL_FILE = join(secrets, "database-url");
      }
      const args = ["init", "--data-dir", join(root, "one-shot"), "--if-empty", "--output", join(root, "credentials.json")];
      const first = runCli(args, env);
      expect(first.status, first.stderr).toBe(0);
      expect(first.stdout).toBe("");
      const file = join(root, "credentials.json");
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const written = readFileSync(file, "utf8");
      expect(JSON.parse(written)).toHaveProperty("apiPrivateKey");
      const again = runCli(args, env);
      expect(again.status, again.stderr).toBe(0);
      expect(again.stderr).toContain("already holds an organization; nothing created");
      expect(readFileSync(file, "utf8")).toBe(written);
      const both = runCli(args, { ...env, STRONGROOM_MASTER_KEY: randomBytes(32).toString("hex") });
      expect(both.status).toBe(1);
      expect(both.stderr).toContain("set STRONGROOM_MASTER_KEY or STRONGROOM_MASTER_KEY_FILE, not both");
    } finally {
      await postgres?.drop();
    }
  }, 300_000);

  it("init --help lists no listening flags it would ignore", () => {
    const help = runCli(["init", "--help"], embeddedCliEnv());
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("--data-dir");
    for (const flag of ["--host", "--port", "--auth-proxy-port"]) expect(help.stdout).not.toContain(flag);
  });
});
