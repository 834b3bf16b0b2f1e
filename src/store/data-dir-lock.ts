import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";

export class DataDirInUseError extends Error {
  constructor(dataDir: string, pid: number) {
    super(
      `the data directory ${dataDir} is in use by another Strongroom process (pid ${pid}); ` +
        `stop it first, or use another --data-dir (or DATABASE_URL for a shared PostgreSQL)`,
    );
    this.name = "DataDirInUseError";
  }
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Takes an exclusive lock on a data directory: a file created with O_EXCL holding our pid.
 * A lock left by a process that no longer exists is taken over. Returns the release function.
 */
export function acquireDataDirLock(dataDir: string): () => void {
  const lockPath = join(dataDir, "strongroom.lock");
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(lockPath, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        process.off("exit", release);
        try {
          if (readFileSync(lockPath, "utf8") === String(process.pid)) unlinkSync(lockPath);
        } catch {
          // already gone
        }
      };
      process.on("exit", release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number.parseInt(readFileSync(lockPath, "utf8"), 10);
      if (Number.isInteger(holder) && holder !== process.pid && processIsAlive(holder)) {
        throw new DataDirInUseError(dataDir, holder);
      }
      if (holder === process.pid) throw new DataDirInUseError(dataDir, holder);
      unlinkSync(lockPath);
    }
  }
  throw new Error(`could not lock the data directory ${dataDir}`);
}
