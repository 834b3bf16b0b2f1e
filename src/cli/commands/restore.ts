import type { Command } from "commander";
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { resolveConfig } from "../../config.js";
import { createKeyEncryptionKey, parseMasterKey } from "../../crypto/key-encryption.js";
import { fileKeyOpensStore } from "../../crypto/keyring/replace-data-keys.js";
import type { Queryable } from "../../store/database.js";
import { latestMigration, SchemaTooNewError } from "../../store/migrations.js";
import { loadEmbeddedStore } from "../../store/pglite-backup.js";
import { dataDirOption, fail } from "./data-dir-option.js";

interface RestoreFlags {
  dataDir: string;
  keyFile?: string;
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

export function registerRestore(program: Command): void {
  program
    .command("restore")
    .description(
      "load a backup made by `strongroom backup` into the embedded store (--data-dir), while no server uses it. The backup is " +
        "checked first: its keyring (or, from before the keyring, its secrets) must open with the master key (--key-file, " +
        "STRONGROOM_MASTER_KEY or the data directory's master.key) " +
        "and must not be from a newer Strongroom",
    )
    .argument("<file>", "the backup file")
    .addOption(dataDirOption())
    .option("--key-file <path>", "the master.key saved with the backup; installed as the data directory's master.key")
    .option("--force", "replace a store already in the data directory (it is kept beside, renamed)")
    .action(async (file: string, flags: RestoreFlags) => {
      try {
        const config = resolveConfig({ dataDir: flags.dataDir });
        if (config.databaseUrl)
          throw new Error(`DATABASE_URL is set: restore PostgreSQL with psql or pg_restore (see "Operate it" in docs/operations.md)`);
        if (config.dataDir.startsWith("memory://")) throw new Error("cannot restore into an in-memory store");
        const { key, install } = restoreKey(flags, config.masterKey, config.dataDir);
        const ownKeyFile = join(config.dataDir, "master.key");
        if (install && existsSync(ownKeyFile) && !parseMasterKey(readFileSync(ownKeyFile, "utf8")).equals(key) && !flags.force) {
          throw new Error(`${ownKeyFile} holds another key: pass --force to replace it (the store sealed under it is set aside too)`);
        }
        const result = await loadEmbeddedStore(config.dataDir, new Uint8Array(readFileSync(file)), {
          replace: flags.force === true,
          async verify(db) {
            const [schema] = (await db.query<{ version: number | null }>("SELECT max(version) AS version FROM schema_migrations")).rows;
            if (schema?.version != null && schema.version > latestMigration())
              throw new SchemaTooNewError(schema.version, latestMigration());
            const [signer] = (await db.query<{ sealed: string }>("SELECT sealed FROM server_secrets WHERE name = 'signer'")).rows;
            if (!signer) throw new Error(`${file} holds no Strongroom store (no signer key)`);
            const opens = await fileKeyOpensStore(queryableOf(db), key, (sealed) =>
              createKeyEncryptionKey(key).open(sealed, "server-key:signer"),
            );
            if (!opens)
              throw new Error(
                `the backup's secrets do not open with this master key: give the master.key saved with the backup (--key-file)`,
              );
          },
        });
        let keyReplacedTo: string | undefined;
        if (install) {
          // The key of the store set aside goes with it: without it that store could never be opened again.
          if (existsSync(ownKeyFile) && !parseMasterKey(readFileSync(ownKeyFile, "utf8")).equals(key)) {
            keyReplacedTo = result.replacedTo ? `${result.replacedTo}.master.key` : `${ownKeyFile}.before-restore-${Date.now()}`;
            renameSync(ownKeyFile, keyReplacedTo);
          }
          writeFileSync(ownKeyFile, key.toString("hex") + "\n", { mode: 0o600 });
          chmodSync(ownKeyFile, 0o600);
        }
        process.stdout.write(
          JSON.stringify({ restored: file, dataDir: config.dataDir, ...result, ...(keyReplacedTo ? { keyReplacedTo } : {}) }, null, 2) +
            "\n",
        );
      } catch (error) {
        fail(error);
      }
    });
}
