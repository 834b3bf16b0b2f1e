import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { builtPath } from "../package-root.js";
import { latestMigration, migrations } from "./migrations.js";

/**
 * A migrated, empty embedded store as a data-directory tarball, so that a new store (in memory, or the first start
 * of a data directory) starts by loading it instead of running `initdb` and every migration (seconds each time).
 * `npm run build` ships one beside this module (scripts/build-pglite-template.mjs); otherwise it is built once per
 * process and kept between processes in the OS temporary directory. Either is found under a name that changes with
 * the PGlite version and with every migration's version, name and SQL, so a changed migration never loads an old
 * schema. It holds the schema only: the server's keys and everything else are written after the store opens
 * (src/open-services.ts).
 */
const TAR_MAGIC_OFFSET = 257;
/**
 * Changes when the way a template is built changes (2: checkpointed before the dump; 3: without template0 and
 * template1), so older cache files are not used.
 */
const TEMPLATE_FORMAT = 3;

function pgliteVersion(): string {
  const require = createRequire(import.meta.url);
  let dir = dirname(require.resolve("@electric-sql/pglite"));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string; version?: string };
      if (pkg.name === "@electric-sql/pglite" && pkg.version) return pkg.version;
    } catch {
      // not the package's own directory yet
    }
    const parent = dirname(dir);
    if (parent === dir) return "unknown";
    dir = parent;
  }
}

/** The file name of the template this code and this PGlite would build. */
export function templateCacheKey(): string {
  const hash = createHash("sha256").update(`format ${TEMPLATE_FORMAT}\0`);
  for (const migration of migrations) hash.update(`${migration.version}\0${migration.name}\0${migration.sql}\0`);
  return `pglite-${pgliteVersion()}-schema-${latestMigration()}-${hash.digest("hex").slice(0, 16)}.tar.gz`;
}

export const defaultTemplateCacheDir = (): string => join(tmpdir(), "strongroom-pglite-templates");

/** Where the build puts the template: dist/store/pglite-template/, part of the installed code. */
export const shippedTemplateDir = (): string => builtPath("store", "pglite-template");

/**
 * The cache directory is trusted only if this user owns it and no one else can write to it: in a shared temporary
 * directory another user could otherwise plant a "template" (a schema with triggers of theirs) for this one to load.
 */
function trustedCacheDir(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = statSync(dir);
    return stat.isDirectory() && (process.getuid === undefined || stat.uid === process.getuid()) && (stat.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** A gzip of a tar archive: what a cache file must hold to be loaded; anything else (cut short, garbage) is ignored. */
function readCachedTemplate(path: string): Blob | undefined {
  try {
    const tar = gunzipSync(readFileSync(path));
    if (tar.length < 512 || tar.toString("latin1", TAR_MAGIC_OFFSET, TAR_MAGIC_OFFSET + 5) !== "ustar") return undefined;
    return new Blob([new Uint8Array(tar)], { type: "application/x-tar" });
  } catch {
    return undefined;
  }
}

/** Written to a file of its own, then renamed: a reader sees the whole template or none. */
export async function writeTemplateFile(path: string, template: Blob, options: { level?: number; mode?: number } = {}): Promise<void> {
  const partial = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.partial`;
  try {
    writeFileSync(partial, gzipSync(new Uint8Array(await template.arrayBuffer()), { level: options.level ?? 1 }), {
      mode: options.mode ?? 0o600,
    });
    renameSync(partial, path);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
}

/** A cache that cannot be written is skipped. */
const writeCachedTemplate = (path: string, template: Blob) => writeTemplateFile(path, template).catch(() => undefined);

const inProcess = new Map<string, Promise<Blob>>();

/**
 * The migrated template (an uncompressed tar of the data directory, as `loadDataDir` takes it): from this process's memory, else the one
 * the build shipped, else the cache directory, else `build` (which must create a fresh store, migrate it and dump it), then cached in both.
 */
export function migratedTemplate(
  build: () => Promise<Blob>,
  cacheDir = defaultTemplateCacheDir(),
  shippedDir = shippedTemplateDir(),
): Promise<Blob> {
  const key = templateCacheKey();
  const path = join(cacheDir, key);
  let template = inProcess.get(path);
  if (!template) {
    template = (async () => {
      const shipped = readCachedTemplate(join(shippedDir, key));
      if (shipped) return shipped;
      const useCache = trustedCacheDir(cacheDir);
      const cached = useCache ? readCachedTemplate(path) : undefined;
      if (cached) return cached;
      const built = await build();
      if (useCache) await writeCachedTemplate(path, built);
      return built;
    })();
    // A failed build is not remembered: the next store tries again.
    template.catch(() => inProcess.delete(path));
    inProcess.set(path, template);
  }
  return template;
}
