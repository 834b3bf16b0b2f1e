import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { open } from "node:fs/promises";
import { dirname, join, normalize, sep } from "node:path";

const BLOCK = 512;
const DIRECTORY = 0x35; // '5'
const REGULAR_FILES = new Set([0x30, 0x00]); // '0', and NUL in pre-POSIX archives

const text = (header: Uint8Array, at: number, length: number) =>
  Buffer.from(header.subarray(at, at + length))
    .toString("latin1")
    .replace(/\0.*$/s, "");

/** A member's name made relative to the directory it unpacks into; a name that would leave it is refused. */
function relativeName(header: Uint8Array): string {
  const prefix = text(header, 345, 155);
  const name = text(header, 0, 100);
  const full = normalize((prefix ? `${prefix}/${name}` : name).replace(/^\/+/, ""));
  if (full === ".." || full.startsWith(`..${sep}`)) throw new Error(`the data-directory archive names a path outside it: ${full}`);
  return full === "." ? "" : full.replace(/\/+$/, "");
}

/** Flushes every path, several at a time: each fsync waits on the disk, and the thread pool runs them side by side. */
async function fsyncAll(paths: string[]): Promise<void> {
  let next = 0;
  const flusher = async () => {
    while (next < paths.length) {
      const handle = await open(paths[next++]!, "r");
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, flusher));
}

function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Unpacks a PostgreSQL data directory archived as a ustar tar (PGlite's `dumpDataDir`) into `target`, which must not
 * exist, durably and all at once: into `<target>.unpacking` first, every file and directory written and flushed to
 * the disk (fsync), then renamed to `target` and the parent directory flushed. A crash part-way leaves no `target`,
 * only the `.unpacking` directory, which the next call removes and starts again.
 *
 * PostgreSQL's own initdb flushes the whole data directory the same way before a server first starts on it: the
 * files of a fresh cluster are not in its WAL, so a power loss must not find them only in the page cache.
 */
export async function unpackDataDir(archive: Uint8Array, target: string): Promise<void> {
  const staging = `${target}.unpacking`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: false, mode: 0o700 });
  const directories = new Set<string>([staging]);
  const files: string[] = [];
  /** A directory (and those above it, up to the staging directory) to flush once its entries are written. */
  const made = (directory: string) => {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    for (let d = directory; d.length > staging.length && !directories.has(d); d = dirname(d)) directories.add(d);
  };
  for (let at = 0; at + BLOCK <= archive.length;) {
    const header = archive.subarray(at, at + BLOCK);
    if (header.every((byte) => byte === 0)) break;
    const size = parseInt(text(header, 124, 12).trim() || "0", 8);
    const type = header[156]!;
    const name = relativeName(header);
    const path = join(staging, name);
    at += BLOCK;
    if (type === DIRECTORY) {
      made(path);
    } else if (REGULAR_FILES.has(type)) {
      made(dirname(path));
      files.push(path);
      const fd = openSync(path, "wx", 0o600);
      try {
        let written = 0;
        while (written < size) written += writeSync(fd, archive, at + written, size - written);
      } finally {
        closeSync(fd);
      }
    } else {
      throw new Error(
        `the data-directory archive holds ${name}, of tar type ${String.fromCharCode(type)}: only files and directories are expected`,
      );
    }
    at += Math.ceil(size / BLOCK) * BLOCK;
  }
  // Written first and flushed together: one fsync after another, as each file is written, takes seconds.
  await fsyncAll(files);
  await fsyncAll([...directories]);
  renameSync(staging, target);
  fsyncPath(dirname(target));
}
