import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { acquireDataDirLock } from "../../src/store/data-dir-lock.js";
import { repoRoot } from "../helpers/processes.js";

/** Another process holding the data directory's lock until it is killed. */
async function holdInAnotherProcess(dataDir: string): Promise<ChildProcess> {
  const script =
    `const { acquireDataDirLock } = await import("./src/store/data-dir-lock.ts");` +
    `acquireDataDirLock(${JSON.stringify(dataDir)}); console.log("locked"); setInterval(() => {}, 60_000);`;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: repoRoot });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("locked") && resolve());
    child.once("exit", (code) => reject(new Error(`the holder exited with ${code}`)));
  });
  return child;
}

describe("the data directory lock", () => {
  let dataDir: string;
  let lockPath: string;
  const releases: Array<() => void> = [];
  const acquire = () => {
    const release = acquireDataDirLock(dataDir);
    releases.push(release);
    return release;
  };

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), "strongroom-lock-"));
    lockPath = join(dataDir, "strongroom.lock");
  });
  afterEach(() => {
    for (const release of releases.splice(0)) release();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("is refused to a second open in the same process, and taken again once released", () => {
    const release = acquire();
    expect(() => acquireDataDirLock(dataDir)).toThrow(/in use .*this very process/);
    release();
    acquire();
    expect(JSON.parse(readFileSync(lockPath, "utf8"))).toMatchObject({ pid: process.pid, host: hostname() });
  });

  it("is taken whatever a lock file left behind records: only a live holder's kernel lock refuses", () => {
    // Records of earlier versions' holders, on another host and in another PID namespace: nobody holds them.
    for (const left of [
      String(process.pid),
      JSON.stringify({ pid: 1, host: "elsewhere.example", pidNamespace: "pid:[1]", bootId: "b", startTicks: "1" }),
      "not json",
    ]) {
      writeFileSync(lockPath, left);
      acquire();
      expect(JSON.parse(readFileSync(lockPath, "utf8"))).toMatchObject({ pid: process.pid });
      releases.pop()!();
    }
  });

  it("is refused while another process holds it, naming that process, and free the moment it dies", async () => {
    const holder = await holdInAnotherProcess(dataDir);
    try {
      expect(() => acquireDataDirLock(dataDir)).toThrow(
        new RegExp(`in use by another Strongroom process \\(pid ${holder.pid} on ${hostname()} since .*stop it first`),
      );
    } finally {
      const exited = new Promise((resolve) => holder.once("exit", resolve));
      holder.kill("SIGKILL");
      await exited;
    }
    acquire();
    expect(JSON.parse(readFileSync(lockPath, "utf8"))).toMatchObject({ pid: process.pid });
  }, 120_000);
});
