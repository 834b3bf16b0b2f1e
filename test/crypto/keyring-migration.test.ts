import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config.js";
import { keyringReport } from "../../src/crypto/keyring/keyring-report.js";
import { SEALED_COLUMNS } from "../../src/crypto/rekey.js";
import { startServer, type RunningServer } from "../../src/server/start.js";
import { openStore, type StoreOptions } from "../../src/store/open.js";
import { latestMigration } from "../../src/store/migrations.js";
import { freshPostgresDatabase } from "../helpers/postgres-database.js";
import { ethereumWallet, eventually } from "../helpers/sealed-server.js";

/**
 * The last main before the keyring: every value sealed straight under the master key (`v1:`), schema version 35.
 * Its sources are taken from this repository's history and run in this process, so the store below is one that
 * release made, not an imitation of it.
 */
const BEFORE_KEYRING = "ca5ae42";
const repoRoot = resolve(import.meta.dirname, "../..");
const MASTER_KEY = "5a".repeat(32);

type StartServer = typeof startServer;
type ResolveConfig = typeof resolveConfig;
type InitRoot = typeof import("../../src/domains/organizations/init-root-organization.js").initRootOrganization;

/** The sealed values of every sealed column, by "table.column". */
async function sealedValues(store: StoreOptions): Promise<Map<string, string[]>> {
  const db = await openStore(store);
  try {
    const values = new Map<string, string[]>();
    for (const sealed of SEALED_COLUMNS) {
      const rows = await db.query<{ sealed: string }>(
        `SELECT ${sealed.column} AS sealed FROM ${sealed.table} WHERE ${sealed.column} IS NOT NULL`,
      );
      values.set(
        `${sealed.table}.${sealed.column}`,
        rows.map((r) => r.sealed),
      );
    }
    return values;
  } finally {
    await db.close();
  }
}

/** The old release's sources come from git: a checkout without that history (a shallow clone, a packed tarball) cannot run this. */
const hasHistory = (() => {
  try {
    execFileSync("git", ["cat-file", "-e", `${BEFORE_KEYRING}^{commit}`], { cwd: repoRoot, stdio: "ignore" });
    return true;
  } catch {
    console.warn(`keyring migration test skipped: commit ${BEFORE_KEYRING} is not in this checkout's history (a shallow clone?)`);
    return false;
  }
})();

describe.skipIf(!hasHistory)(
  `a store made before the keyring (${BEFORE_KEYRING}) moves into it, ${process.env.DATABASE_URL ? "PostgreSQL" : "embedded"}`,
  () => {
    const work = mkdtempSync(join(tmpdir(), "strongroom-keyring-migration-"));
    const dataDir = join(work, "data");
    let database: { url: string; drop(): Promise<void> } | undefined;
    let old: { startServer: StartServer; resolveConfig: ResolveConfig; initRootOrganization: InitRoot };
    const servers: RunningServer[] = [];

    const env = (masterKey = MASTER_KEY) => ({
      ...(database ? { DATABASE_URL: database.url } : {}),
      STRONGROOM_MASTER_KEY: masterKey,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
      AUTH_PROXY_PORT: "0",
      STRONGROOM_KEYRING_POLL_MS: "100",
    });
    const flags = { dataDir, host: "127.0.0.1", port: 0 };
    const store: () => StoreOptions = () => ({ dataDir, ...(database ? { databaseUrl: database.url } : {}) });

    beforeAll(async () => {
      if (process.env.DATABASE_URL) database = await freshPostgresDatabase(process.env.DATABASE_URL);
      const sources = join(work, "before-keyring");
      execFileSync("mkdir", ["-p", sources]);
      const archive = execFileSync("git", ["archive", BEFORE_KEYRING, "src", "package.json"], {
        cwd: repoRoot,
        maxBuffer: 256 * 1024 * 1024,
      });
      execFileSync("tar", ["-x", "-C", sources], { input: archive });
      symlinkSync(join(repoRoot, "node_modules"), join(sources, "node_modules"));
      const imported = (path: string) => import(/* @vite-ignore */ join(sources, path)) as Promise<Record<string, unknown>>;
      old = {
        startServer: (await imported("src/server/start.ts")).startServer as StartServer,
        resolveConfig: (await imported("src/config.ts")).resolveConfig as ResolveConfig,
        initRootOrganization: (await imported("src/domains/organizations/init-root-organization.ts")).initRootOrganization as InitRoot,
      };
    }, 120_000);

    afterAll(async () => {
      for (const server of servers) await server.close();
      await database?.drop();
      rmSync(work, { recursive: true, force: true });
    });

    it(
      "opens every value of the old store, moves each into the keyring, and still opens them all afterwards",
      { timeout: 120_000 },
      async () => {
        // The old release makes the store: its server keys, a wallet and a private key, all sealed the v1 way.
        const before = await old.startServer(old.resolveConfig(flags, env()));
        servers.push(before);
        const root = await old.initRootOrganization(before.services, {});
        const { walletId, address, client } = await ethereumWallet(before.url, root, "from before the keyring");
        const { privateKeys } = await client(before.url).createPrivateKeys({
          privateKeys: [{ privateKeyName: "from before the keyring", curve: "CURVE_SECP256K1", privateKeyTags: [], addressFormats: [] }],
        });
        const privateKeyId = privateKeys[0]!.privateKeyId!;
        const signatures = async (url: string) => {
          const sign = (signWith: string) =>
            client(url).signRawPayload({
              signWith,
              payload: "0x" + "5e".repeat(32),
              encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
              hashFunction: "HASH_FUNCTION_NO_OP",
            });
          const [account, key] = await Promise.all([sign(address), sign(privateKeyId)]);
          return { account: account.r + account.s, key: key.r + key.s };
        };
        const signedBefore = await signatures(before.url);
        const exported = async (url: string) => (await client(url).getWallet({ walletId })).wallet.walletName;
        const signerBefore = before.services.signer.publicKeyHex;
        const auditKeyBefore = before.services.audit.keys.verifierKey;
        await before.close();
        servers.pop();

        const v1 = await sealedValues(store());
        for (const column of ["server_secrets.sealed", "wallets.sealed_mnemonic", "private_keys.sealed_private_key"]) {
          expect(v1.get(column)!.length, column).toBeGreaterThan(0);
        }
        for (const [column, values] of v1) for (const value of values) expect(value.startsWith("v1:"), column).toBe(true);

        // A wrong master key is refused before any key is written: no keyring is made under it, no value changes.
        await expect(startServer(resolveConfig(flags, env("a7".repeat(32))))).rejects.toThrow(/wrong key-encryption key/);
        const untouched = await openStore(store());
        try {
          expect(await keyringReport(untouched)).toMatchObject({ provider: null, versions: [] });
        } finally {
          await untouched.close();
        }
        expect(await sealedValues(store())).toEqual(v1);

        // Today's server on the same store: migrations 37 to the latest, a keyring under the same master key, every old value
        // opening, and the background re-seal moving them all under key version 1.
        const after = await startServer(resolveConfig(flags, env()));
        servers.push(after);
        expect(after.services.store.schemaVersion).toBe(latestMigration());
        expect(after.services.signer.publicKeyHex).toBe(signerBefore);
        expect(after.services.audit.keys.verifierKey).toBe(auditKeyBefore);
        expect(await signatures(after.url)).toEqual(signedBefore);
        await eventually(async () => {
          const db = after.services.db;
          return (await keyringReport(db)).valuesBeforeKeyring === 0;
        }, "every v1 value moved into the keyring");
        const report = await keyringReport(after.services.db);
        expect(report.provider).toBe("file");
        expect(report.versions.map((v) => v.version)).toEqual([1]);
        expect(await signatures(after.url)).toEqual(signedBefore);
        expect(await exported(after.url)).toBe("from before the keyring");
        await after.close();
        servers.pop();

        const v2 = await sealedValues(store());
        for (const [column, values] of v2) {
          expect(values.length, column).toBe(v1.get(column)!.length);
          for (const value of values) expect(value.startsWith("v2:1:"), column).toBe(true);
        }

        // And once more from a cold start, with nothing left in the old format.
        const again = await startServer(resolveConfig(flags, env()));
        servers.push(again);
        expect(again.services.signer.publicKeyHex).toBe(signerBefore);
        expect(again.services.audit.keys.verifierKey).toBe(auditKeyBefore);
        expect(await signatures(again.url)).toEqual(signedBefore);
      },
    );
  },
);
