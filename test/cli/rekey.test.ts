import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createKeyEncryptionKey, parseMasterKey } from "../../src/crypto/key-encryption.js";
import { Custody } from "../../src/crypto/keyring/custody.js";
import type { Keyring } from "../../src/crypto/keyring/keyring.js";
import { SEALED_COLUMNS } from "../../src/crypto/rekey.js";
import { openStore, type StoreOptions } from "../../src/store/open.js";
import { activityBody, p256Stamp, post } from "../helpers/requests.js";
import { clientOf, freshPostgresDatabase, organizationWithWallet, serve, signature, strongroom } from "./operator.js";

type SealedValues = Map<string, { context: string; sealed: string }[]>;

/** Every sealed value in the store, by column, with the context it is bound to; and the store's own list of sealed columns. */
async function sealedValues(store: StoreOptions): Promise<{ values: SealedValues; columnsInSchema: string[] }> {
  const db = await openStore(store);
  try {
    const values: SealedValues = new Map();
    for (const column of SEALED_COLUMNS) {
      const rows = await db.query<Record<string, string>>(
        // A nullable column (activities.sealed_secret_params) holds a secret only in some rows.
        `SELECT ${column.key.join(", ")}, ${column.column} AS sealed FROM ${column.table} WHERE ${column.column} IS NOT NULL`,
      );
      values.set(
        `${column.table}.${column.column}`,
        rows.map((row) => ({ context: column.context(row), sealed: row.sealed! })),
      );
    }
    const columns = await db.query<{ name: string }>(
      "SELECT table_name || '.' || column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name LIKE 'sealed%'",
    );
    // ANALYZE must never copy sealed values into pg_statistic (migration 0032): a new sealed column needs the same.
    const sampled = await db.query<{ name: string }>(
      `SELECT c.relname || '.' || a.attname AS name FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
       WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND a.attname LIKE 'sealed%' AND coalesce(a.attstattarget, -1) <> 0`,
    );
    expect(sampled.map((c) => c.name)).toEqual([]);
    return { values, columnsInSchema: columns.map((c) => c.name).sort() };
  } finally {
    await db.close();
  }
}

/** The first characters of a sealed value's payload (`v2:<version>:` and its random IV), unique to that value. */
const idOf = (sealed: string) => sealed.slice(0, sealed.indexOf(":", 3) + 21);

/** The wrapped data keys of the keyring (base64 whose first 24 characters are the random IV). */
async function wrappedKeys(store: StoreOptions): Promise<string[]> {
  const db = await openStore(store);
  try {
    return (await db.query<{ wrapped: string }>("SELECT wrapped_key AS wrapped FROM keyring")).map((r) => r.wrapped.slice(0, 24));
  } finally {
    await db.close();
  }
}

/** The keyring of the store opened with `key` as the file provider's key (throws when the key does not open it). */
async function keyringOpenedWith(store: StoreOptions, key: Buffer): Promise<Keyring> {
  const db = await openStore(store);
  try {
    return (await Custody.open(db, { provider: "file", pollMs: 1000 }, () => key)).keyring;
  } finally {
    await db.close();
  }
}

/**
 * Which of `wanted` (ids of sealed values, found after their `v2:` marker; or wrapped keys, searched for as they are)
 * appear in any file under `dir`, byte for byte: table files, indexes, the write-ahead log, whatever the engine keeps there.
 */
function sealedValuesInFiles(dir: string, wanted: Set<string>): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const note = (id: string, file: string) => found.set(id, [...new Set([...(found.get(id) ?? []), file.slice(dir.length + 1)])]);
  const marker = Buffer.from("v2:");
  const unmarked = [...wanted].filter((id) => !id.startsWith("v2:")).map((id) => [id, Buffer.from(id, "latin1")] as const);
  const walk = (path: string) => {
    for (const entry of readdirSync(path)) {
      const file = join(path, entry);
      const stat = statSync(file, { throwIfNoEntry: false });
      if (!stat) continue; // removed while we looked (PostgreSQL's own files come and go)
      if (stat.isDirectory()) walk(file);
      else if (stat.isFile()) {
        const bytes = readFileSync(file);
        for (let at = bytes.indexOf(marker); at !== -1; at = bytes.indexOf(marker, at + 1)) {
          const colon = bytes.indexOf(":", at + 3);
          if (colon === -1 || colon - at > 12) continue;
          const id = bytes.subarray(at, colon + 21).toString("latin1");
          if (wanted.has(id)) note(id, file);
        }
        for (const [id, needle] of unmarked) if (bytes.includes(needle)) note(id, file);
      }
    }
  };
  walk(dir);
  return found;
}

/** The files a scan can read: the data directory (embedded), or, on PostgreSQL, the database's own directory when this runs as root beside it. */
async function storeFiles(store: StoreOptions): Promise<string | undefined> {
  if (!store.databaseUrl) return store.dataDir;
  if (process.getuid?.() !== 0) return undefined;
  const db = await openStore(store);
  try {
    const [where] = await db.query<{ root: string; oid: string }>(
      "SELECT current_setting('data_directory') AS root, (SELECT oid::text FROM pg_database WHERE datname = current_database()) AS oid",
    );
    const dir = join(where!.root, "base", where!.oid);
    await db.exec("CHECKPOINT"); // the rows written so far, out of the buffers into the files
    return existsSync(dir) ? dir : undefined;
  } catch {
    return undefined; // not a superuser: the data directory's path is not ours to read
  } finally {
    await db.close();
  }
}

describe("strongroom rekey", { timeout: 600_000 }, () => {
  const work = mkdtempSync(join(tmpdir(), "strongroom-rekey-"));
  const dataDir = join(work, "data");
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
    rmSync(work, { recursive: true, force: true });
  });

  it("re-seals every sealed secret under a new key: the old key opens nothing, and the server signs with the new one", async () => {
    // Embedded: the key file. PostgreSQL (DATABASE_URL): STRONGROOM_MASTER_KEY, and the new key is printed.
    const database = process.env.DATABASE_URL ? await freshPostgresDatabase(process.env.DATABASE_URL) : undefined;
    if (database) cleanups.push(database.drop);
    const oldKeyHex = randomBytes(32).toString("hex");
    const env: Record<string, string> = database ? { DATABASE_URL: database.url, STRONGROOM_MASTER_KEY: oldKeyHex } : {};
    const store: StoreOptions = { dataDir, databaseUrl: database?.url };

    const server = await serve(dataDir, env);
    let before;
    try {
      before = await organizationWithWallet(server);
      const client = clientOf(server, before.root);
      await client.createPrivateKeys({
        privateKeys: [
          { privateKeyName: "standalone", curve: "CURVE_ED25519", privateKeyTags: [], addressFormats: ["ADDRESS_FORMAT_SOLANA"] },
        ],
      });
      await client.initImportPrivateKey({ userId: before.root.userId });
      const body = activityBody("ACTIVITY_TYPE_ENABLE_AUTH_PROXY", before.root.organizationId, {});
      const enabled = await post(`${server.url}/public/v1/submit/enable_auth_proxy`, body, {
        "X-Stamp": p256Stamp(body, before.root.apiPublicKey, before.root.apiPrivateKey!),
      });
      expect(enabled.status).toBe(200);
      if (!database) {
        const busy = strongroom(["rekey", "--data-dir", dataDir]);
        expect(busy.status).not.toBe(0);
        expect(busy.stderr).toContain("in use");
      }
    } finally {
      await server.close();
    }

    const old = await sealedValues(store);
    // Every sealed column of the schema is one rekey knows: a new one must be added to SEALED_COLUMNS.
    expect(old.columnsInSchema).toEqual([...old.values.keys()].sort());
    for (const column of ["server_secrets.sealed", "wallets.sealed_mnemonic", "wallet_accounts.sealed_private_key"]) {
      expect(old.values.get(column)!.length, column).toBeGreaterThan(0);
    }
    for (const column of ["private_keys.sealed_private_key", "import_keys.sealed_private_key", "auth_proxy_configs.sealed_private_key"]) {
      expect(old.values.get(column)!.length, column).toBeGreaterThan(0);
    }
    const oldIds = new Set([...[...old.values.values()].flat().map((v) => idOf(v.sealed)), ...(await wrappedKeys(store))]);
    const files = await storeFiles(store);
    // The scan finds them before (so finding none after means something).
    if (files) expect(sealedValuesInFiles(files, oldIds).size).toBeGreaterThan(0);
    const oldKey = database ? parseMasterKey(oldKeyHex) : parseMasterKey(readFileSync(join(dataDir, "master.key"), "utf8"));

    const run = strongroom(["rekey", "--data-dir", dataDir], env);
    expect(run.status, run.stderr).toBe(0);
    const output = JSON.parse(run.stdout) as {
      resealed: Record<string, number>;
      purged: { rewritten: string[]; checkpoint: boolean; walRecycled: boolean; warnings: string[] };
      newMasterKey?: string;
      keyFile?: string;
    };
    // Nothing the old key opens is left in the store: the old row versions are rewritten away.
    expect(output.purged).toMatchObject({ checkpoint: true, warnings: [], walRecycled: !database });
    expect(output.purged.rewritten.sort()).toEqual(["keyring", ...new Set(SEALED_COLUMNS.map((c) => c.table))].sort());
    if (files) expect([...sealedValuesInFiles(files, oldIds)], `old ciphertexts left in ${files}`).toEqual([]);
    if (database) {
      const db = await openStore(store);
      try {
        // Counted from the pages by pgstattuple (pg_stat_user_tables.n_dead_tup lags: each connection reports its updates later).
        const [available] = await db.query("SELECT 1 FROM pg_available_extensions WHERE name = 'pgstattuple'");
        if (available) await db.exec("CREATE EXTENSION IF NOT EXISTS pgstattuple SCHEMA public");
        for (const table of available ? output.purged.rewritten : []) {
          const [tuples] = await db.query<{ dead: string }>("SELECT dead_tuple_count::text AS dead FROM public.pgstattuple($1::regclass)", [
            table,
          ]);
          expect(tuples!.dead, `dead row versions left in ${table}`).toBe("0");
        }
        // ANALYZE never samples a sealed column into pg_statistic (migration 0032).
        const sampled = await db.query<{ name: string }>(
          `SELECT tablename || '.' || attname AS name FROM pg_stats WHERE schemaname = current_schema() AND attname LIKE 'sealed%'`,
        );
        expect(sampled).toEqual([]);
      } finally {
        await db.close();
      }
    }
    for (const [column, rows] of old.values) expect(output.resealed[column], column).toBe(rows.length);
    const newKeyHex = database ? output.newMasterKey! : readFileSync(join(dataDir, "master.key"), "utf8").trim();
    if (database) expect(run.stderr).toContain("Set STRONGROOM_MASTER_KEY to the new key");
    else expect(output.keyFile).toBe(join(dataDir, "master.key"));
    const newKey = parseMasterKey(newKeyHex);
    expect(newKey.equals(oldKey)).toBe(false);

    const after = await sealedValues(store);
    // The old key opens no data key of the keyring any more (its versions were deleted); the new one does.
    await expect(keyringOpenedWith(store, oldKey)).rejects.toThrow(/could not be opened with the master key/);
    const newKek = await keyringOpenedWith(store, newKey);
    const oldKek = createKeyEncryptionKey(oldKey);
    const oldCiphertexts = new Set([...old.values.values()].flat().map((v) => v.sealed));
    for (const [column, rows] of after.values) {
      expect(rows.length, column).toBe(old.values.get(column)!.length);
      for (const { context, sealed } of rows) {
        expect(oldCiphertexts.has(sealed), `${column} kept an old ciphertext`).toBe(false);
        expect(() => oldKek.open(sealed, context), `${column}: the old key still opens ${context}`).toThrow();
        expect(newKek.open(sealed, context).length).toBeGreaterThan(0);
      }
    }

    const restarted = await serve(dataDir, database ? { ...env, STRONGROOM_MASTER_KEY: newKeyHex } : env);
    try {
      expect(await signature(clientOf(restarted, before.root), before.address)).toBe(before.signature);
    } finally {
      await restarted.close();
    }
    if (database) {
      // The old key no longer opens the store: a server given it refuses to start.
      await expect(serve(dataDir, env)).rejects.toThrow(/could not be opened/);
    }
  });
});
