import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";

const repoRoot = join(import.meta.dirname, "../..");

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const port = (probe.address() as { port: number }).port;
      probe.close(() => resolve(port));
    });
  });
}

/** `strongroom <args>` run to completion from the sources. */
export function runCli(args: string[], env: NodeJS.ProcessEnv) {
  return spawnSync(process.execPath, ["--import", "tsx", "src/cli/main.ts", ...args], {
    cwd: repoRoot,
    env,
    encoding: "utf8",
    timeout: 60_000,
  });
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** SIGKILL, and wait until the process is gone (so its data-directory lock is stale). */
  kill(): Promise<void>;
}

/** `strongroom serve` in a process of its own, answering /health. */
export async function startServerProcess(env: NodeJS.ProcessEnv, args: string[] = []): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "src/cli/main.ts", "serve", "--port", String(port), "--auth-proxy-port", "0", ...args],
    { cwd: repoRoot, env, stdio: ["ignore", "ignore", "inherit"] },
  );
  const url = `http://127.0.0.1:${port}`;
  // Generous: a busy two-core machine may take tens of seconds to load the sources.
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`strongroom serve exited with ${child.exitCode}`);
    if (
      (await fetch(`${url}/health`)
        .then((r) => r.ok)
        .catch(() => false)) === true
    )
      break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error("strongroom serve did not start");
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    child,
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      await exited;
    },
  };
}
