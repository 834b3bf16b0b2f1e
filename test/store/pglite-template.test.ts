import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/store/database.js";
import { latestMigration, migrations } from "../../src/store/migrations.js";
import { openStore } from "../../src/store/open.js";
import { defaultTemplateCacheDir, migratedTemplate, templateCacheKey } from "../../src/store/pglite-template.js";

/** A minimal tar: the "ustar" magic at offset 257 is what a cache file must show; `text` marks which one it is. */
function tarOf(text: string): Blob {
  const header = Buffer.alloc(1024);
  header.write("ustar", 257, "latin1");
  header.write(text, 600, "latin1");
  return new Blob([new Uint8Array(header)]);
}

const appliedVersions = async (db: Database) =>
  (await db.query<{ version: number }>("SELECT version FROM schema_migrations ORDER BY version")).map((row) => Number(row.version));

describe("in-memory stores from the migrated template", () => {
  const opened: Database[] = [];
  afterAll(async () => {
    for (const db of opened) await db.close();
  });

  it("opens every in-memory store of a process fully migrated, each with data of its own", async () => {
    const first = await openStore({ dataDir: "memory://" });
    opened.push(first);
    const second = await openStore({ dataDir: "memory://" });
    opened.push(second);
    const all = migrations.map((m) => m.version);
    expect(await appliedVersions(first)).toEqual(all);
    expect(await appliedVersions(second)).toEqual(all);

    await first.exec("CREATE TABLE only_in_first (x int)");
    await first.query("INSERT INTO only_in_first VALUES ($1)", [1]);
    expect(await first.query("SELECT x FROM only_in_first")).toEqual([{ x: 1 }]);
    await expect(second.query("SELECT x FROM only_in_first")).rejects.toThrow(/only_in_first/);
    // The template holds the schema only: no server keys or other rows, which the server writes once it opens the store;
    // besides the migrations applied, only the audit log's empty state, seeded by its migration.
    const tables = await second.query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
    );
    expect(tables.length).toBeGreaterThan(10);
    const filled: string[] = [];
    for (const { name } of tables) {
      const [{ n }] = (await second.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${name}"`)) as [{ n: number }];
      if (n > 0) filled.push(name);
    }
    expect(filled.sort()).toEqual(["audit_log_state", "schema_migrations"]);
  });

  it("starts a new data directory as a copy of the template (no initdb of its own), migrated, in files only this user can read", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "strongroom-template-dir-"));
    try {
      const inMemory = await openStore({ dataDir: "memory://" });
      opened.push(inMemory);
      const onDisk = await openStore({ dataDir });
      opened.push(onDisk);
      // initdb gives every cluster a system identifier of its own; a copy keeps the template's.
      const identifier = async (db: Database) =>
        (await db.query<{ id: string }>("SELECT system_identifier::text AS id FROM pg_control_system()"))[0]!.id;
      expect(await identifier(onDisk)).toBe(await identifier(inMemory));
      expect(await appliedVersions(onDisk)).toEqual(migrations.map((m) => m.version));
      expect(statSync(join(dataDir, "pgdata", "PG_VERSION")).mode & 0o077).toBe(0);
      expect(statSync(join(dataDir, "pgdata", "base")).mode & 0o077).toBe(0);
      // Only the database Strongroom uses: initdb's template0 and template1 are not unpacked into every new store.
      expect(await onDisk.query("SELECT datname FROM pg_database")).toEqual([{ datname: "postgres" }]);
      expect(readdirSync(join(dataDir, "pgdata", "base"))).toEqual(["5"]);
      expect(existsSync(join(dataDir, "pgdata.unpacking"))).toBe(false);
    } finally {
      await opened.pop()!.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("keeps the template between processes in the cache directory, under the PGlite version and the migrations' hash", async () => {
    const key = templateCacheKey();
    expect(key).toMatch(new RegExp(`^pglite-[^-]+-schema-${latestMigration()}-[0-9a-f]{16}\\.tar\\.gz$`));
    expect(defaultTemplateCacheDir()).toBe(join(tmpdir(), "strongroom-pglite-templates"));
    // Where no build shipped one, the template a process builds is cached under that name for the next process.
    const cacheDir = mkdtempSync(join(tmpdir(), "strongroom-template-cache-"));
    try {
      const built = await migratedTemplate(() => Promise.resolve(tarOf("built")), cacheDir, join(cacheDir, "nothing-shipped"));
      const cached = gunzipSync(readFileSync(join(cacheDir, key)));
      expect(cached.toString("latin1", 257, 262)).toBe("ustar");
      expect(cached).toEqual(Buffer.from(await built.arrayBuffer()));
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });
});

describe("the template cache file", () => {
  const dir = mkdtempSync(join(tmpdir(), "strongroom-template-test-"));
  // What these cases look at is the cache: a template shipped by a build (dist/store/pglite-template) would come first.
  const nothingShipped = join(dir, "nothing-shipped");
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is ignored and rebuilt when corrupt", async () => {
    const path = join(dir, templateCacheKey());
    writeFileSync(path, "not a gzip of a tar");
    let builds = 0;
    const template = await migratedTemplate(
      async () => {
        builds++;
        return tarOf("rebuilt");
      },
      dir,
      nothingShipped,
    );
    expect(builds).toBe(1);
    expect(Buffer.from(await template.arrayBuffer()).toString("latin1", 600, 607)).toBe("rebuilt");
    expect(gunzipSync(readFileSync(path)).toString("latin1", 600, 607)).toBe("rebuilt");
  });

  it("is loaded, not rebuilt, by a process that finds it; a process builds once", async () => {
    const found = mkdtempSync(join(dir, "found-"));
    writeFileSync(join(found, templateCacheKey()), gzipSync(Buffer.from(await tarOf("from-file").arrayBuffer())));
    const loaded = await migratedTemplate(() => Promise.reject(new Error("built though a cache file was there")), found, nothingShipped);
    expect(Buffer.from(await loaded.arrayBuffer()).toString("latin1", 600, 609)).toBe("from-file");

    const empty = mkdtempSync(join(dir, "empty-"));
    let builds = 0;
    const build = async () => {
      builds++;
      return tarOf("from-build");
    };
    const [one, two] = await Promise.all([migratedTemplate(build, empty, nothingShipped), migratedTemplate(build, empty, nothingShipped)]);
    expect(builds).toBe(1);
    expect(one).toBe(two);
  });
});
