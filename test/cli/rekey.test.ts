import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createKeyEncryptionKey, parseMasterKey } from "../../src/crypto/key-encryption.js";
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
    return { values, columnsInSchema: columns.map((c) => c.name).sort() };
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
    const oldKey = database ? parseMasterKey(oldKeyHex) : parseMasterKey(readFileSync(join(dataDir, "master.key"), "utf8"));

    const run = strongroom(["rekey", "--data-dir", dataDir], env);
    expect(run.status, run.stderr).toBe(0);
    const output = JSON.parse(run.stdout) as { resealed: Record<string, number>; newMasterKey?: string; keyFile?: string };
    for (const [column, rows] of old.values) expect(output.resealed[column], column).toBe(rows.length);
    const newKeyHex = database ? output.newMasterKey! : readFileSync(join(dataDir, "master.key"), "utf8").trim();
    if (database) expect(run.stderr).toContain("Set STRONGROOM_MASTER_KEY to the new key");
    else expect(output.keyFile).toBe(join(dataDir, "master.key"));
    const newKey = parseMasterKey(newKeyHex);
    expect(newKey.equals(oldKey)).toBe(false);

    const after = await sealedValues(store);
    const oldKek = createKeyEncryptionKey(oldKey);
    const newKek = createKeyEncryptionKey(newKey);
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
