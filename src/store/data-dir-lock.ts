import { linkSync, readFileSync, readlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";

/**
 * Who holds a lock, recorded well enough to tell a live holder from a stale lock without trusting the PID
 * alone: in a container the server is often PID 1, and after a restart the new server is PID 1 again, so
 * "PID 1 is alive" (or "the PID is my own") says nothing about the old holder.
 */
interface Holder {
  pid: number;
  host: string;
  /** The kernel's boot id: after a reboot every holder of the previous boot is gone. */
  bootId?: string;
  /** The PID namespace: a PID can be checked only from inside the namespace it belongs to. */
  pidNamespace?: string;
  /** The process's start time in clock ticks after boot: a reused PID has another. */
  startTicks?: string;
}

export class DataDirInUseError extends Error {
  constructor(dataDir: string, lockPath: string, holder: Holder, why: string) {
    super(
      `the data directory ${dataDir} is in use by another Strongroom process (pid ${holder.pid} on ${holder.host}${why}); ` +
        `stop it first, or use another --data-dir (or DATABASE_URL for a shared PostgreSQL). ` +
        `If you are sure no process uses it, delete ${lockPath} and start again`,
    );
    this.name = "DataDirInUseError";
  }
}

function readOptional(path: string, read: (path: string) => string = (p) => readFileSync(p, "utf8")): string | undefined {
  try {
    return read(path).trim();
  } catch {
    return undefined;
  }
}

/** Field 22 of /proc/<pid>/stat, read after the command name (which may itself hold spaces and parentheses). */
function startTicksOf(pid: number | "self"): string | undefined {
  const stat = readOptional(`/proc/${pid}/stat`);
  return stat?.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
}

/** This process, as a lock records it (on systems without /proc, its PID and host only). */
export function currentHolder(): Holder {
  return {
    pid: process.pid,
    host: hostname(),
    bootId: readOptional("/proc/sys/kernel/random/boot_id"),
    pidNamespace: readOptional("/proc/self/ns/pid", readlinkSync),
    startTicks: startTicksOf("self"),
  };
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A lock file's holder: the JSON this module writes, or a bare PID (written by earlier versions). */
function parseHolder(text: string): Holder | undefined {
  if (/^\s*\d+\s*$/.test(text)) return { pid: Number(text), host: hostname() };
  try {
    const holder = JSON.parse(text) as Holder;
    return Number.isInteger(holder.pid) && typeof holder.host === "string" ? holder : undefined;
  } catch {
    return undefined;
  }
}

/** Why the holder may still be running (the lock is then refused), or undefined when the lock is stale. */
function stillHeld(holder: Holder, me: Holder): string | undefined {
  if (holder.host !== me.host) return ", another host: its process cannot be checked from here";
  if (holder.bootId && me.bootId && holder.bootId !== me.bootId) return undefined;
  if (holder.pidNamespace && me.pidNamespace && holder.pidNamespace !== me.pidNamespace) {
    return ", in another PID namespace (container): its process cannot be checked from here";
  }
  if (holder.startTicks !== undefined && me.startTicks !== undefined) {
    // Same kernel and namespace: the holder runs only if its PID still belongs to a process started when it was.
    return startTicksOf(holder.pid) === holder.startTicks ? "" : undefined;
  }
  // Without a start time, only a PID: our own PID cannot belong to another live process.
  return holder.pid !== me.pid && processIsAlive(holder.pid) ? "" : undefined;
}

/**
 * Creates `path` holding `content`, or fails with EEXIST: written to a file of its own first, then linked into
 * place, so nobody ever reads a lock file that exists but is still empty.
 */
function createWithContent(path: string, content: string): void {
  const draft = `${path}.${process.pid}.${Date.now()}`;
  writeFileSync(draft, content, { mode: 0o600 });
  try {
    linkSync(draft, path);
  } finally {
    unlinkSync(draft);
  }
}

/** Data directories this process holds: a second open in the same process is refused, not taken over. */
const heldHere = new Set<string>();

/**
 * Takes an exclusive lock on a data directory: a file created with O_EXCL recording who holds it. A lock
 * whose holder is gone (checked by boot, PID namespace, PID and the process's start time) is taken over; a
 * refusal says what to do. Returns the release function.
 */
export function acquireDataDirLock(dataDir: string): () => void {
  const lockPath = join(dataDir, "strongroom.lock");
  const me = currentHolder();
  if (heldHere.has(lockPath)) throw new DataDirInUseError(dataDir, lockPath, me, ", this very process");
  const record = JSON.stringify(me);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      createWithContent(lockPath, record);
      heldHere.add(lockPath);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        heldHere.delete(lockPath);
        process.off("exit", release);
        try {
          if (readFileSync(lockPath, "utf8") === record) unlinkSync(lockPath);
        } catch {
          // already gone
        }
      };
      process.on("exit", release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const text = readOptional(lockPath);
      const holder = parseHolder(text ?? "");
      const why = holder && stillHeld(holder, me);
      if (holder && why !== undefined) throw new DataDirInUseError(dataDir, lockPath, holder, why);
      // Stale: removed unless another process replaced it meanwhile (then the next attempt judges that one).
      if (text !== undefined && readOptional(lockPath) === text) unlinkSync(lockPath);
    }
  }
  throw new Error(`could not lock the data directory ${dataDir}: its lock file ${join(dataDir, "strongroom.lock")} keeps changing`);
}
