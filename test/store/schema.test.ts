import { freshPostgresDatabase } from "../helpers/postgres-database.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { latestMigration, migrations, SchemaTooNewError } from "../../src/store/migrations.js";
import { openStore, openStoreReporting } from "../../src/store/open.js";

const baseUrl = process.env.DATABASE_URL;

/** A fresh PostgreSQL database of its own, dropped after the file's tests. */
const dropped: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const drop of dropped) await drop();
});
async function freshDatabase(): Promise<string> {
  const { url, drop } = await freshPostgresDatabase(baseUrl!, "strongroom_schema");
  dropped.push(drop);
  return url;
}

async function sql<Row = Record<string, unknown>>(url: string, text: string, params: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as Row[];
  } finally {
    await client.end();
  }
}

const tablesIn = async (url: string, schema: string) =>
  (await sql<{ table_name: string }>(url, "SELECT table_name FROM information_schema.tables WHERE table_schema = $1", [schema])).map(
    (r) => r.table_name,
  );

describe.skipIf(!baseUrl)("Strongroom's tables in their own PostgreSQL schema", () => {
  it("starts on a database whose public schema already has a users table, and keeps its tables in strongroom", async () => {
    const url = await freshDatabase();
    await sql(url, "CREATE TABLE public.users (id serial PRIMARY KEY, email text NOT NULL)");
    await sql(url, "INSERT INTO public.users (email) VALUES ('someone@example.com')");
    const { db, report } = await openStoreReporting({ databaseUrl: url, dataDir: "memory://" });
    try {
      expect(report).toMatchObject({ kind: "postgres", schema: "strongroom", warnings: [] });
      await db.query("INSERT INTO server_secrets (name, sealed, created_at) VALUES ('probe', 'x', now())");
    } finally {
      await db.close();
    }
    expect(await tablesIn(url, "strongroom")).toEqual(expect.arrayContaining(["users", "wallets", "server_secrets", "schema_migrations"]));
    expect((await tablesIn(url, "public")).sort()).toEqual(["users"]);
    expect(await sql(url, "SELECT email FROM public.users")).toEqual([{ email: "someone@example.com" }]);
    expect(await sql(url, "SELECT name FROM strongroom.server_secrets")).toEqual([{ name: "probe" }]);
  });

  // Two processes started together on an empty database (a cluster's first start) each found no schema and no
  // migrations table, created them, and all but one failed on the catalog's unique index, at random.
  it("opens and migrates an empty database from several processes at once", async () => {
    for (let round = 0; round < 3; round++) {
      const url = await freshDatabase();
      const opened = await Promise.allSettled(
        Array.from({ length: 6 }, () => openStoreReporting({ databaseUrl: url, dataDir: "memory://", databasePoolSize: 1 })),
      );
      for (const result of opened) if (result.status === "fulfilled") await result.value.db.close();
      expect(opened.map((result) => (result.status === "fulfilled" ? result.value.report.schemaVersion : String(result.reason)))).toEqual(
        Array.from({ length: 6 }, () => latestMigration()),
      );
      // Each migration applied once, by whichever process got there first.
      expect(opened.flatMap((result) => (result.status === "fulfilled" ? result.value.report.applied : [])).length).toBe(migrations.length);
    }
  });

  it("uses the schema DATABASE_SCHEMA names, creating it", async () => {
    const url = await freshDatabase();
    const { db, report } = await openStoreReporting({ databaseUrl: url, databaseSchema: "vault", dataDir: "memory://" });
    await db.close();
    expect(report.schema).toBe("vault");
    expect(await tablesIn(url, "vault")).toContain("wallets");
    expect(await tablesIn(url, "strongroom")).toEqual([]);
  });

  it("keeps using a store an earlier version made in public, with a warning, until it is moved as docs/operations.md says", async () => {
    const url = await freshDatabase();
    const legacy = await openStore({ databaseUrl: url, databaseSchema: "public", dataDir: "memory://" });
    await legacy.query("INSERT INTO server_secrets (name, sealed, created_at) VALUES ('legacy', 'x', now())");
    await legacy.close();

    const kept = await openStoreReporting({ databaseUrl: url, dataDir: "memory://" });
    await kept.db.close();
    expect(kept.report.schema).toBe("public");
    expect(kept.report.warnings.join()).toContain("Upgrade");

    // The move docs/operations.md describes, for a database that holds only Strongroom:
    await sql(url, "ALTER SCHEMA public RENAME TO strongroom; CREATE SCHEMA public");
    const moved = await openStoreReporting({ databaseUrl: url, dataDir: "memory://" });
    try {
      expect(moved.report).toMatchObject({ schema: "strongroom", warnings: [], applied: [] });
      expect(await moved.db.query("SELECT name FROM server_secrets")).toEqual([{ name: "legacy" }]);
    } finally {
      await moved.db.close();
    }
  });

  it("refuses a schema name that would need quoting", async () => {
    const url = await freshDatabase();
    await expect(openStore({ databaseUrl: url, databaseSchema: "Robert'); DROP", dataDir: "memory://" })).rejects.toThrow(
      /DATABASE_SCHEMA .* must be a lowercase name/,
    );
  });
});

describe("a store migrated by a newer Strongroom", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "strongroom-guard-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("is refused at start, naming the store's schema version and the code's", { timeout: 180_000 }, async () => {
    const options = baseUrl ? { databaseUrl: await freshDatabase(), dataDir: "memory://" } : { dataDir };
    const db = await openStore(options);
    const future = latestMigration() + 1;
    await db.query("INSERT INTO schema_migrations (version, name) VALUES ($1, 'from a newer Strongroom')", [future]);
    await db.close();

    const refused = openStore(options);
    await expect(refused).rejects.toThrow(SchemaTooNewError);
    await expect(openStore(options)).rejects.toThrow(
      `the database schema is at migration ${future} (schema_migrations), newer than this Strongroom knows (its latest migration is ${latestMigration()})`,
    );
  });
});
