import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { embeddedCliEnv, freePort, repoRoot, runCli, waitUntilHealthy } from "../helpers/processes.js";

/** Whether this machine lets us make PID and UTS namespaces (root, or a kernel allowing unprivileged ones). */
const canUnshare = spawnSync("unshare", ["--pid", "--fork", "--mount-proc", "--uts", "true"]).status === 0;

interface Container {
  /** unshare, the process outside the namespace. */
  outer: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * `strongroom serve` as a container runs it: PID 1 of a new PID namespace, with a hostname of its own (a UTS
 * namespace), on the given data directory.
 */
function startContainer(dataDir: string, host: string, port: number): Container {
  const outer = spawn(
    "unshare",
    [
      "--pid",
      "--fork",
      "--mount-proc",
      "--uts",
      "sh",
      "-c",
      `hostname ${host} && exec "$0" "$@"`,
      process.execPath,
      "--import",
      "tsx",
      "src/cli/main.ts",
      "serve",
      "--data-dir",
      dataDir,
      "--port",
      String(port),
      "--auth-proxy-port",
      "off",
    ],
    { cwd: repoRoot, env: embeddedCliEnv() },
  );
  let output = "";
  outer.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  outer.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => outer.once("exit", (code) => resolve(code)));
  return { outer, url: `http://127.0.0.1:${port}`, output: () => output, exited };
}

/** The server's PID as this (outer) namespace sees it: the only child of unshare. */
function serverPid(container: Container): number {
  const pid = container.outer.pid!;
  return Number(readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim());
}

/** The server's PID inside its own namespace (the last field of NSpid). */
function pidInsideItsNamespace(outerPid: number): number {
  const line = readFileSync(`/proc/${outerPid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("NSpid:"))!;
  return Number(line.trim().split(/\s+/).at(-1));
}

describe.runIf(canUnshare)("a data directory shared by containers", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "strongroom-container-"));
  const containers: Container[] = [];
  afterAll(() => {
    for (const container of containers) container.outer.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("opens again after its server, PID 1 of its namespace, was killed; a second live server is still refused", async () => {
    const init = runCli(["init", "--data-dir", dataDir], embeddedCliEnv());
    expect(init.status, init.stderr).toBe(0);

    const first = startContainer(dataDir, "box-one", await freePort());
    containers.push(first);
    await waitUntilHealthy(first.url, first.outer, 180_000);
    const firstPid = serverPid(first);
    expect(pidInsideItsNamespace(firstPid)).toBe(1);

    // While it lives, a server in another namespace with another hostname is refused, naming the holder.
    const rival = startContainer(dataDir, "box-two", await freePort());
    containers.push(rival);
    expect(await rival.exited).not.toBe(0);
    expect(rival.output()).toMatch(/in use by another Strongroom process \(pid 1 on box-one/);
    expect((await fetch(`${first.url}/health`)).status).toBe(200);

    // The first server dies at once (SIGKILL: nothing of its own runs), as in a container killed or lost.
    process.kill(firstPid, "SIGKILL");
    await first.exited;

    // A new container (a new PID namespace, another hostname) on the same volume starts without help.
    const next = startContainer(dataDir, "box-three", await freePort());
    containers.push(next);
    await waitUntilHealthy(next.url, next.outer, 180_000);
    expect(pidInsideItsNamespace(serverPid(next))).toBe(1);
    process.kill(serverPid(next), "SIGTERM");
    expect(await next.exited).toBe(0);
  }, 600_000);
});
