import { closeSync, ftruncateSync, openSync, readFileSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { hostname } from "node:os";
import { join } from "node:path";

/**
 * The data directory's lock is a kernel lock on `strongroom.lock` (an open-file-description lock on Linux,
 * flock on macOS, LockFileEx on Windows, through fs-native-extensions): the kernel drops it when its holder's
 * file is closed, which its death does, wherever the holder ran — another PID namespace, another hostname, a
 * container restarted on the same volume. Nothing is judged from PIDs or hosts, so a live holder is never
 * mistaken for a dead one and a dead one never keeps the directory.
 *
 * The file itself is never removed: a lock taken on a file that another process then unlinks and creates
 * anew would let two holders lock two different files. What it holds (PID, host, start time) only names the
 * holder in the refusal.
 */
interface FileLocks {
  tryLock(fd: number, offset?: number, length?: number, options?: { shared?: boolean }): boolean;
}

const { tryLock } = createRequire(import.meta.url)("fs-native-extensions") as FileLocks;

interface Holder {
  pid: number;
  host: string;
  since: string;
}

export class DataDirInUseError extends Error {
  constructor(dataDir: string, holder: string) {
    super(
      `the data directory ${dataDir} is in use by another Strongroom process (${holder}); ` +
        `stop it first, or use another --data-dir (or DATABASE_URL for a shared PostgreSQL)`,
    );
    this.name = "DataDirInUseError";
  }
}

/** How a refusal names the holder: what its lock file records, as far as it can be read. */
function describeHolder(lockPath: string): string {
  try {
    const holder = JSON.parse(readFileSync(lockPath, "utf8")) as Partial<Holder>;
    if (Number.isInteger(holder.pid) && typeof holder.host === "string") {
      return `pid ${holder.pid} on ${holder.host}${typeof holder.since === "string" ? ` since ${holder.since}` : ""}`;
    }
  } catch {
    // being written, or by an earlier version
  }
  return "its lock is held";
}

/** Data directories this process holds: a second open in the same process is refused, not taken over. */
const heldHere = new Set<string>();

/**
 * Takes the exclusive lock on a data directory, or throws DataDirInUseError while any other process (or
 * this one) holds it. Returns the release function; the process's exit or death releases it too.
 */
export function acquireDataDirLock(dataDir: string): () => void {
  const lockPath = join(dataDir, "strongroom.lock");
  if (heldHere.has(lockPath)) throw new DataDirInUseError(dataDir, `pid ${process.pid}, this very process`);
  const fd = openSync(lockPath, "a+", 0o600);
  let locked: boolean;
  try {
    locked = tryLock(fd);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  if (!locked) {
    closeSync(fd);
    throw new DataDirInUseError(dataDir, describeHolder(lockPath));
  }
  const holder: Holder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  ftruncateSync(fd, 0);
  writeSync(fd, JSON.stringify(holder), 0);
  heldHere.add(lockPath);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    heldHere.delete(lockPath);
    try {
      ftruncateSync(fd, 0);
    } finally {
      closeSync(fd);
    }
  };
}
