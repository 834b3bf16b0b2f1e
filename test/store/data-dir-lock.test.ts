import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { acquireDataDirLock, currentHolder } from "../../src/store/data-dir-lock.js";

const onLinux = existsSync("/proc/self/stat");
const startTicks = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
};

describe("the data directory lock", () => {
  let dataDir: string;
  let lockPath: string;
  const releases: Array<() => void> = [];
  const lockAs = (holder: object | string) => writeFileSync(lockPath, typeof holder === "string" ? holder : JSON.stringify(holder));
  const acquire = () => {
    const release = acquireDataDirLock(dataDir);
    releases.push(release);
    return release;
  };
  /** The lock file names this process now: the stale record it found was replaced, not left beside it. */
  const recordedHolder = () => JSON.parse(readFileSync(lockPath, "utf8")) as unknown;
  /** Takes the lock over from the record on disk, and shows that it did: the file now records this process. */
  const takeOver = () => {
    expect(recordedHolder()).not.toEqual(currentHolder());
    acquire();
    expect(recordedHolder()).toEqual(currentHolder());
    releases.pop()!();
    expect(existsSync(lockPath)).toBe(false);
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
    expect(() => acquireDataDirLock(dataDir)).toThrow(/in use .*this very process.*delete .*strongroom\.lock/);
    release();
    acquire();
    expect(JSON.parse(readFileSync(lockPath, "utf8"))).toMatchObject({ pid: process.pid });
  });

  it("takes over a lock left by an earlier process with this process's PID (a restarted container's PID 1)", () => {
    lockAs(String(process.pid)); // the bare PID earlier versions wrote
    takeOver();
    if (!onLinux) return;
    lockAs({ ...currentHolder(), startTicks: "1" });
    takeOver();
  });

  it.runIf(onLinux)("takes over a lock recorded by PID 1 of an earlier start, while another PID 1 runs", () => {
    lockAs({ ...currentHolder(), pid: 1, startTicks: String(Number(startTicks(1)) + 12345) });
    takeOver();
  });

  it("takes over a lock whose process has exited, and one from before the last boot", () => {
    const exited = spawnSync(process.execPath, ["-e", "0"]).pid!;
    lockAs({ ...currentHolder(), pid: exited, startTicks: "1" });
    takeOver();
    lockAs(String(exited));
    takeOver();
    lockAs({ ...currentHolder(), pid: 1, bootId: "another-boot" });
    takeOver();
  });

  it.runIf(onLinux)("is refused while the recorded process runs, saying who holds it and what to do", async () => {
    const holder = spawn("sleep", ["30"]);
    try {
      await new Promise((resolve) => holder.once("spawn", resolve));
      lockAs({ ...currentHolder(), pid: holder.pid, startTicks: startTicks(holder.pid!) });
      expect(() => acquireDataDirLock(dataDir)).toThrow(
        new RegExp(`in use by another Strongroom process \\(pid ${holder.pid} .*stop it first.*delete ${lockPath}`),
      );
      expect(JSON.parse(readFileSync(lockPath, "utf8")).pid).toBe(holder.pid);
    } finally {
      holder.kill();
    }
  });

  it("is refused when the holder cannot be checked from here: another host, another PID namespace", () => {
    lockAs({ ...currentHolder(), host: "elsewhere.example" });
    expect(() => acquireDataDirLock(dataDir)).toThrow(/pid \d+ on elsewhere\.example, another host/);
    if (!onLinux) return;
    lockAs({ ...currentHolder(), pid: 1, pidNamespace: "pid:[1]" });
    expect(() => acquireDataDirLock(dataDir)).toThrow(/another PID namespace/);
  });
});
