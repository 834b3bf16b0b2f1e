import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { open } from "node:fs/promises";
import { dirname, join, normalize, sep } from "node:path";
import { Readable } from "node:stream";
import { extract } from "tar-stream";

/** A member's name made relative to the directory it unpacks into; a name that would leave it is refused. */
function relativeName(name: string): string {
  const full = normalize(name.replace(/^\/+/, ""));
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
  for await (const entry of Readable.from([archive]).pipe(extract())) {
    const name = relativeName(entry.header.name);
    const path = join(staging, name);
    if (entry.header.type === "directory") {
      made(path);
    } else if (entry.header.type === "file") {
      made(dirname(path));
      files.push(path);
      const fd = openSync(path, "wx", 0o600);
      try {
        for await (const chunk of entry as AsyncIterable<Buffer>) writeSync(fd, chunk);
      } finally {
        closeSync(fd);
      }
      continue;
    } else {
      throw new Error(`the data-directory archive holds ${name}, a ${entry.header.type}: only files and directories are expected`);
    }
    entry.resume();
  }
  // Written first and flushed together: one fsync after another, as each file is written, takes seconds.
  await fsyncAll(files);
  await fsyncAll([...directories]);
  renameSync(staging, target);
  fsyncPath(dirname(target));
}
