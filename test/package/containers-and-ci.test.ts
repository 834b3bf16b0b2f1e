import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, repoRoot } from "../helpers/processes.js";

const read = (file: string) => readFileSync(join(repoRoot, file), "utf8");

describe("Dockerfile", () => {
  const dockerfile = read("Dockerfile");
  const lint = (file: string) =>
    spawnSync(process.execPath, [join(repoRoot, "node_modules/dockerfile-utils/bin/dockerfile-utils"), "lint", file], { encoding: "utf8" });

  it("passes dockerfile-utils lint (which does report problems: a deprecated instruction is caught)", () => {
    const bad = join(mkdtempSync(join(tmpdir(), "sr-lint-")), "Dockerfile");
    writeFileSync(bad, "FROM node\nMAINTAINER someone\n");
    expect(lint(bad).stdout).toContain("MAINTAINER has been deprecated");
    const run = lint(join(repoRoot, "Dockerfile"));
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe("");
  });

  it("pins its base image by digest, checks health, runs as node, and bakes in no HOST", () => {
    const from = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(from).toEqual(["${NODE_IMAGE}", "${NODE_IMAGE}"]);
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:20-bookworm-slim@sha256:[0-9a-f]{64}$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\n\s+CMD \["node", "-e", .*\/health/m);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile.indexOf("USER node")).toBeLessThan(dockerfile.indexOf("ENTRYPOINT"));
    expect(dockerfile).not.toMatch(/^\s*(ENV\b.*)?HOST=/m);
    expect(dockerfile).toMatch(/^CMD \["serve", "--host", "0\.0\.0\.0"\]$/m);
  });

  it("has a healthcheck command that succeeds against a healthy server and fails without one", async () => {
    const command = /HEALTHCHECK[^\n]*\n\s+CMD \["node", "-e", (".*")\]/.exec(dockerfile)![1]!;
    const script = JSON.parse(command) as string;
    const port = await freePort();
    // Run asynchronously: this process serves the health answer meanwhile.
    const check = () =>
      new Promise<number | null>((resolve) => {
        const child = spawn(process.execPath, ["-e", script], { env: { ...process.env, PORT: String(port) } });
        child.once("exit", resolve);
      });
    expect(await check()).toBe(1);
    const server = createServer((socket) =>
      socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 15\r\n\r\n{"status":"ok"}'),
    );
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    try {
      expect(await check()).toBe(0);
    } finally {
      server.close();
    }
  });
});

describe("compose.yaml", () => {
  const compose = read("compose.yaml");
  it("publishes on loopback only, holds no literal secret, and runs a one-shot init that writes a volume file", () => {
    const published = [...compose.matchAll(/^\s+- "([^"]+:\d+:\d+)"$/gm)].map((m) => m[1]);
    expect(published).toEqual(["127.0.0.1:8080:8080", "127.0.0.1:8090:8090", "127.0.0.1:9090:9090"]);
    expect(compose).not.toMatch(/PASSWORD:\s*\S/);
    expect(compose).not.toMatch(/postgres:\/\/[^:\s]+:[^@$%\s]+@/);
    expect(compose).toMatch(/DATABASE_URL_FILE: \/run\/secrets\/database-url/);
    expect(compose).toMatch(/STRONGROOM_MASTER_KEY_FILE: \/run\/secrets\/master-key/);
    expect(compose).toContain('command: ["init", "--if-empty", "--output", "/credentials/initial-credentials.json"]');
    expect(compose).toContain("condition: service_completed_successfully");
    expect(compose).toMatch(/healthcheck:\n\s+test: \["CMD", "node", "-e"/);
    expect(compose).toContain('"--metrics-port", "9090"');
  });
});

/** The Actions example's steps, run by bash as the runner runs them, with `strongroom` built from this checkout. */
describe("examples/github-actions.yml", () => {
  const workflow = read("examples/github-actions.yml");
  const step = (name: string) => {
    const start = workflow.indexOf(`- name: ${name}`);
    const lines = workflow.slice(start).split("\n");
    const runAt = lines.findIndex((line) => line.trim() === "run: |");
    const body: string[] = [];
    for (const line of lines.slice(runAt + 1)) {
      if (!line.startsWith("          ")) break;
      body.push(line.slice(10));
    }
    return body.join("\n");
  };
  const project = mkdtempSync(join(tmpdir(), "sr-ci-"));
  let ports: { api: number; proxy: number };

  beforeAll(async () => {
    const build = spawnSync(process.execPath, ["scripts/build-if-stale.mjs"], { cwd: repoRoot, encoding: "utf8", timeout: 300_000 });
    expect(build.status, build.stderr).toBe(0);
    mkdirSync(join(project, "node_modules/.bin"), { recursive: true });
    const bin = join(project, "node_modules/.bin/strongroom");
    writeFileSync(bin, `#!/bin/sh\nexec "${process.execPath}" "${join(repoRoot, "dist/cli/strongroom.js")}" "$@"\n`);
    chmodSync(bin, 0o755);
    ports = { api: await freePort(), proxy: await freePort() };
  }, 320_000);
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  /** One step run with `bash -e` as the runner does, on free ports instead of 8080 and 8090. */
  const run = (script: string, env: Record<string, string>) =>
    spawnSync(
      "bash",
      [
        "-e",
        "-c",
        script.replace("--port 8080", `--port ${ports.api}`).replace("--auth-proxy-port 8090", `--auth-proxy-port ${ports.proxy}`),
      ],
      {
        cwd: project,
        env: { ...process.env, ...env },
        encoding: "utf8",
        timeout: 200_000,
      },
    );

  it("starts the dev server, exports its values, and the stop step leaves no process behind", async () => {
    const githubEnv = join(project, "github.env");
    writeFileSync(githubEnv, "");
    const started = run(step("Start Strongroom"), { GITHUB_ENV: githubEnv });
    expect(started.status, started.stdout + started.stderr).toBe(0);
    const exported = Object.fromEntries(
      readFileSync(githubEnv, "utf8")
        .trim()
        .split("\n")
        .map((line) => line.split("=", 2) as [string, string]),
    );
    expect(exported.BASE_URL).toBe(`http://127.0.0.1:${ports.api}`);
    expect(exported.ORGANIZATION_ID).toMatch(/^[0-9a-f-]{36}$/);
    expect((await fetch(`${exported.BASE_URL}/health`)).status).toBe(200);
    const pid = Number(exported.STRONGROOM_PID);
    expect(() => process.kill(pid, 0)).not.toThrow();

    const stopped = run(step("Stop Strongroom"), { STRONGROOM_PID: String(pid) });
    expect(stopped.status, stopped.stderr).toBe(0);
    expect(() => process.kill(pid, 0)).toThrow();
  }, 240_000);

  it("fails at once, with the server's log, when the server cannot start", async () => {
    const busy = createServer().listen(ports.api, "127.0.0.1");
    await new Promise((resolve) => busy.once("listening", resolve));
    try {
      const githubEnv = join(project, "failed.env");
      writeFileSync(githubEnv, "");
      // An earlier run's values left in the workspace: the step must not take them for this server's. The server's own
      // redirection empties the file only once its background shell runs, which on a busy machine came after the
      // step's first look (CI saw this step succeed): the step empties it itself before starting the server.
      writeFileSync(join(project, "strongroom.env"), "AUTH_PROXY_CONFIG_ID=left-from-an-earlier-run\n");
      const script = step("Start Strongroom");
      expect(script.indexOf(": > strongroom.env")).toBeGreaterThan(-1);
      expect(script.indexOf(": > strongroom.env")).toBeLessThan(script.indexOf("strongroom dev"));
      const started = run(step("Start Strongroom"), { GITHUB_ENV: githubEnv });
      expect(started.status).toBe(1);
      expect(started.stdout).toContain("::error::strongroom dev exited before it was ready");
      expect(started.stdout).toContain("already in use");
      expect(readFileSync(githubEnv, "utf8")).not.toContain("BASE_URL");
    } finally {
      busy.close();
    }
  }, 240_000);
});
