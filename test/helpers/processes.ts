import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";

/** The repository's root: where the CLI is run from. */
export const repoRoot = join(import.meta.dirname, "../..");

/** This process's environment for a CLI run embedded: DATABASE_URL and the master key come only from each test. */
export function embeddedCliEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: "warn" };
  delete env.DATABASE_URL;
  delete env.STRONGROOM_MASTER_KEY;
  return env;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const port = (probe.address() as { port: number }).port;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * How a test runs the CLI: from the sources, or — with STRONGROOM_TEST_BUILT_CLI=1, after `npm run build` — the
 * compiled build, which starts in a fraction of the time (long crash runs restart the server hundreds of times).
 */
export const cliEntry = process.env.STRONGROOM_TEST_BUILT_CLI
  ? [join(repoRoot, "dist/cli/strongroom.js")]
  : ["--import", "tsx", "src/cli/main.ts"];

/** `strongroom <args>` run to completion. */
export function runCli(args: string[], env: NodeJS.ProcessEnv) {
  return spawnSync(process.execPath, [...cliEntry, ...args], {
    cwd: repoRoot,
    env,
    encoding: "utf8",
    timeout: 180_000, // generous: on a loaded two-core machine loading the sources alone takes tens of seconds
  });
}

/** `strongroom <args>` run to completion without blocking this process (a server running in it may have to answer the CLI). */
export function runCliAsync(args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...cliEntry, ...args], { cwd: repoRoot, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** SIGKILL, and wait until the process is gone (so its data-directory lock is stale). */
  kill(): Promise<void>;
  /** SIGTERM, and wait until the process has drained, stopped its workers and exited: its exit code. */
  stop(): Promise<number | null>;
}

/**
 * Polls `url`/health (every `pollMs`) until it answers 200; throws if `child` exits first or `timeoutMs` passes (then
 * kills it).
 */
export async function waitUntilHealthy(url: string, child: ChildProcess, timeoutMs: number, pollMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`strongroom serve exited with ${child.exitCode}`);
    if (
      (await fetch(`${url}/health`)
        .then((r) => r.ok)
        .catch(() => false)) === true
    )
      return;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`strongroom serve did not answer /health within ${timeoutMs / 1000} s`);
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/**
 * `strongroom serve` in a process of its own, answering /health; `onStderr` also gets what it writes to stderr,
 * `onStdout` what it writes to stdout (its log). When it ends before it is healthy, the error carries its log's end.
 */
export async function startServerProcess(
  env: NodeJS.ProcessEnv,
  args: string[] = [],
  options: { onStderr?: (text: string) => void; onStdout?: (text: string) => void; startTimeoutMs?: number } = {},
): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [...cliEntry, "serve", "--port", String(port), "--auth-proxy-port", "0", ...args], {
    cwd: repoRoot,
    env,
    stdio: ["ignore", "pipe", options.onStderr ? "pipe" : "inherit"],
  });
  // The log's last lines, for the error when the process ends before it is healthy (a start-up failure is logged there).
  let logTail = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    process.stderr.write(chunk);
    options.onStderr?.(chunk.toString("utf8"));
  });
  child.stdout!.on("data", (chunk: Buffer) => {
    logTail = (logTail + chunk.toString("utf8")).slice(-4000);
    options.onStdout?.(chunk.toString("utf8"));
  });
  const url = `http://127.0.0.1:${port}`;
  // Generous: a busy two-core machine may take tens of seconds to load the sources.
  await waitUntilHealthy(url, child, options.startTimeoutMs ?? 120_000).catch((error: unknown) => {
    throw new Error(`${(error as Error).message}; its log ended with:\n${logTail}`);
  });
  return {
    url,
    child,
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      await exited;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      return exited;
    },
  };
}
