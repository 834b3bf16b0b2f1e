import type { Command } from "commander";
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { resolveConfig, type SealProvider, type SealSettings } from "../../config.js";
import { createKeyEncryptionKey, parseMasterKey } from "../../crypto/key-encryption.js";
import { readSealRow, type SealRow } from "../../crypto/keyring/keyring-rows.js";
import { fileKeyOpensStore } from "../../crypto/keyring/replace-data-keys.js";
import { openProviderWrapper } from "../../crypto/keyring/providers.js";
import { sharesOpenKeyring, wrapperOpensKeyring } from "../../crypto/keyring/root-opens-keyring.js";
import type { Queryable } from "../../store/database.js";
import { latestMigration, SchemaTooNewError } from "../../store/migrations.js";
import { loadEmbeddedStore } from "../../store/pglite-backup.js";
import { readQuorumFile } from "../shares-file.js";
import { dataDirOption, fail } from "./data-dir-option.js";

interface RestoreFlags {
  dataDir: string;
  keyFile?: string;
  unsealSharesFile?: string;
  force?: boolean;
}

type Pglite = Parameters<Parameters<typeof loadEmbeddedStore>[2]["verify"]>[0];

/** The restored store as the keyring's functions read it. */
const queryableOf = (db: Pglite): Queryable => ({
  query: async <Row>(sql: string, params?: unknown[]) => (await db.query<Row>(sql, params)).rows,
  exec: async (sql: string) => void (await db.exec(sql)),
});

/** The key the restored store must open with: --key-file, STRONGROOM_MASTER_KEY, or the data directory's master.key. */
function restoreKey(flags: RestoreFlags, masterKey: string | undefined, dataDir: string): { key: Buffer; install: boolean } {
  if (flags.keyFile) return { key: parseMasterKey(readFileSync(flags.keyFile, "utf8")), install: true };
  if (masterKey) return { key: parseMasterKey(masterKey), install: false };
  const own = join(dataDir, "master.key");
  if (existsSync(own)) return { key: parseMasterKey(readFileSync(own, "utf8")), install: false };
  throw new Error(`no master key: pass --key-file with the master.key saved with the backup (or set STRONGROOM_MASTER_KEY)`);
}

/** The backup's keyring must be wrapped by the configured provider: a server on the restored store would be refused otherwise. */
async function checkProvider(db: Queryable, provider: SealProvider): Promise<SealRow | undefined> {
  const seal = await readSealRow(db);
  if ((seal?.provider ?? "file") !== provider) {
    throw new Error(
      seal
        ? `the backup's keyring is wrapped by the ${seal.provider} seal provider, but STRONGROOM_SEAL=${provider}: restore with STRONGROOM_SEAL=${seal.provider}`
        : `the backup is from before the keyring (its values are sealed under the master key): restore it with STRONGROOM_SEAL=file`,
    );
  }
  return seal;
}

/**
 * STRONGROOM_SEAL=shamir: the root key is in no file, so nothing is installed. With --unseal-shares-file the backup is
 * checked with a quorum of its key shares before it takes the directory's place; without, at the first unseal.
 */
async function checkShamirBackup(db: Queryable, seal: SealRow | undefined, flags: RestoreFlags): Promise<boolean> {
  if (!flags.unsealSharesFile) return false;
  const shares = readQuorumFile(flags.unsealSharesFile, seal?.key_threshold ?? 0);
  if (!(await sharesOpenKeyring(db, shares)))
    throw new Error(
      `the key shares in ${flags.unsealSharesFile} do not combine into the backup's root key (a share is wrong, altered or from another store)`,
    );
  return true;
}

/**
 * STRONGROOM_SEAL=pkcs11 or awskms: the root stays in the token or the KMS, so nothing is installed; the backup is checked
 * by unwrapping every version of its keyring there before it takes the directory's place.
 */
async function checkAutoUnsealBackup(db: Queryable, settings: SealSettings): Promise<void> {
  const wrapper = await openProviderWrapper(
    settings,
    () => {
      throw new Error("the file provider's master key is not used here");
    },
    { create: false },
  );
  try {
    if (!(await wrapperOpensKeyring(db, wrapper)))
      throw new Error(
        `the backup's keyring does not open with ${wrapper.label}: restore it where the key that wrapped it is reachable, or recover it with its recovery shares (strongroom keyring recover)`,
      );
  } finally {
    await wrapper.close();
  }
}

export function registerRestore(program: Command): void {
  program
    .command("restore")
    .description(
      "load a backup made by `strongroom backup` into the embedded store (--data-dir), while no server uses it. The backup is " +
        "checked first: its keyring (or, from before the keyring, its secrets) must open with the master key (--key-file, " +
        "STRONGROOM_MASTER_KEY or the data directory's master.key), or with STRONGROOM_SEAL=shamir with the key shares of " +
        "--unseal-shares-file when given, and must not be from a newer Strongroom",
    )
    .argument("<file>", "the backup file")
    .addOption(dataDirOption())
    .option("--key-file <path>", "the master.key saved with the backup; installed as the data directory's master.key")
    .option(
      "--unseal-shares-file <file>",
      "STRONGROOM_SEAL=shamir: check the backup with a quorum of its key shares (a JSON array, or init's output); nothing is installed",
    )
    .option("--force", "replace a store already in the data directory (it is kept beside, renamed)")
    .action(async (file: string, flags: RestoreFlags) => {
      try {
        const config = resolveConfig({ dataDir: flags.dataDir });
        if (config.databaseUrl)
          throw new Error(`DATABASE_URL is set: restore PostgreSQL with psql or pg_restore (see "Operate it" in docs/operations.md)`);
        if (config.dataDir.startsWith("memory://")) throw new Error("cannot restore into an in-memory store");
        const provider = config.seal.provider;
        const shamir = provider === "shamir";
        if (!shamir && flags.unsealSharesFile) throw new Error("--unseal-shares-file is for STRONGROOM_SEAL=shamir");
        const rootIsIn = { shamir: "its key shares", pkcs11: "its token", awskms: "the KMS" };
        if (provider !== "file" && flags.keyFile)
          throw new Error(`--key-file is the file seal provider's master key: a ${provider} store's root key is in ${rootIsIn[provider]}`);
        let key: { key: Buffer; install: boolean } | undefined;
        let sharesChecked = false;
        const ownKeyFile = join(config.dataDir, "master.key");
        const result = await loadEmbeddedStore(config.dataDir, new Uint8Array(readFileSync(file)), {
          replace: flags.force === true,
          async verify(db) {
            const [schema] = (await db.query<{ version: number | null }>("SELECT max(version) AS version FROM schema_migrations")).rows;
            if (schema?.version != null && schema.version > latestMigration())
              throw new SchemaTooNewError(schema.version, latestMigration());
            const [signer] = (await db.query<{ sealed: string }>("SELECT sealed FROM server_secrets WHERE name = 'signer'")).rows;
            if (!signer) throw new Error(`${file} holds no Strongroom store (no signer key)`);
            const store = queryableOf(db);
            const seal = await checkProvider(store, config.seal.provider);
            if (shamir) {
              sharesChecked = await checkShamirBackup(store, seal, flags);
              return;
            }
            if (provider !== "file") return checkAutoUnsealBackup(store, config.seal);
            key = restoreKey(flags, config.masterKey, config.dataDir);
            const { key: masterKey, install } = key;
            if (install && existsSync(ownKeyFile) && !parseMasterKey(readFileSync(ownKeyFile, "utf8")).equals(masterKey) && !flags.force) {
              throw new Error(`${ownKeyFile} holds another key: pass --force to replace it (the store sealed under it is set aside too)`);
            }
            const opens = await fileKeyOpensStore(store, masterKey, (sealed) =>
              createKeyEncryptionKey(masterKey).open(sealed, "server-key:signer"),
            );
            if (!opens)
              throw new Error(
                `the backup's secrets do not open with this master key: give the master.key saved with the backup (--key-file)`,
              );
          },
        });
        let keyReplacedTo: string | undefined;
        if (key?.install) {
          // The key of the store set aside goes with it: without it that store could never be opened again.
          if (existsSync(ownKeyFile) && !parseMasterKey(readFileSync(ownKeyFile, "utf8")).equals(key.key)) {
            keyReplacedTo = result.replacedTo ? `${result.replacedTo}.master.key` : `${ownKeyFile}.before-restore-${Date.now()}`;
            renameSync(ownKeyFile, keyReplacedTo);
          }
          writeFileSync(ownKeyFile, key.key.toString("hex") + "\n", { mode: 0o600 });
          chmodSync(ownKeyFile, 0o600);
        }
        process.stdout.write(
          JSON.stringify(
            {
              restored: file,
              dataDir: config.dataDir,
              ...result,
              ...(keyReplacedTo ? { keyReplacedTo } : {}),
              ...(shamir ? { seal: "shamir", sharesChecked } : provider !== "file" ? { seal: provider } : {}),
            },
            null,
            2,
          ) + "\n",
        );
      } catch (error) {
        fail(error);
      }
    });
}
