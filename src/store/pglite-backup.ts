import type { PGlite } from "@electric-sql/pglite";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import { acquireDataDirLock } from "./data-dir-lock.js";
import { createPglite } from "./pglite-create.js";
import { withRelativeNames } from "./tar-relative-names.js";

/** PGlite's data directory as a gzipped tar whose member names are relative (`PG_VERSION`, `base/1/112`). */
export async function archiveOf(db: PGlite): Promise<Uint8Array> {
  const tar = new Uint8Array(await (await db.dumpDataDir("none")).arrayBuffer());
  return new Uint8Array(await promisify(gzip)(await withRelativeNames(tar)));
}

/**
 * Backup and restore of the embedded store: a gzipped tar of PGlite's data directory (PGlite's `dumpDataDir`
 * and `loadDataDir`). Both take the data directory's lock, so they run only while no server uses it: a copy
 * taken under a running server could catch its files between a write and the next. A running server takes its
 * own (the store's `snapshot`, asked for through its control socket: src/server/control-socket.ts).
 */
export async function dumpEmbeddedStore(dataDir: string): Promise<Uint8Array> {
  const pgdata = join(dataDir, "pgdata");
  if (!existsSync(pgdata)) throw new Error(`there is no embedded store in ${dataDir} (no pgdata/ directory)`);
  const release = acquireDataDirLock(dataDir);
  try {
    const db = await createPglite(pgdata);
    try {
      return await archiveOf(db);
    } finally {
      await db.close();
    }
  } finally {
    release();
  }
}

/**
 * Loads a dump into `<dataDir>/pgdata`. It is unpacked beside it first and checked by `verify` (which gets the
 * unpacked store); only then does it take the place of pgdata/ — an existing one is kept, renamed, and only
 * with `replace`.
 */
export async function loadEmbeddedStore(
  dataDir: string,
  dump: Uint8Array,
  options: { replace: boolean; verify: (db: PGlite) => Promise<void> },
): Promise<{ replacedTo?: string }> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const release = acquireDataDirLock(dataDir);
  try {
    const pgdata = join(dataDir, "pgdata");
    if (existsSync(pgdata) && !options.replace) {
      throw new Error(
        `${dataDir} already holds a store (pgdata/): restore into an empty data directory, or pass --force to set the current one aside`,
      );
    }
    const staging = join(dataDir, "pgdata.restoring");
    rmSync(staging, { recursive: true, force: true });
    const db = await createPglite(staging, { loadDataDir: new Blob([dump as BlobPart]) });
    try {
      await options.verify(db);
    } catch (error) {
      await db.close();
      rmSync(staging, { recursive: true, force: true });
      throw error;
    }
    await db.close();
    let replacedTo: string | undefined;
    if (existsSync(pgdata)) {
      replacedTo = join(dataDir, `pgdata.before-restore-${new Date().toISOString().replace(/[:.]/g, "-")}`);
      renameSync(pgdata, replacedTo);
    }
    renameSync(staging, pgdata);
    return replacedTo ? { replacedTo } : {};
  } finally {
    release();
  }
}
