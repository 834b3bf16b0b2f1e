import type { Command } from "commander";
import { chmodSync, constants, copyFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { resolveConfig } from "../../config.js";
import { dumpEmbeddedStore } from "../../store/pglite-backup.js";
import { backupThroughControlSocket } from "../../server/control-socket.js";
import { dataDirOption, fail } from "./data-dir-option.js";

const exists = (file: string) => new Error(`${file} already exists: a backup never replaces a file; give a new file name`);

export function registerBackup(program: Command): void {
  program
    .command("backup")
    .description(
      "write the embedded store (--data-dir) to <file>, a gzipped tar (paths relative to pgdata/). While a server runs on the " +
        "data directory, that server takes the snapshot (through its control socket) and keeps serving; otherwise the store is read directly. " +
        "The file holds the keyring and the secrets sealed under it, not the master key that wraps the keyring: keep master.key (--key-out) apart from it. " +
        "For PostgreSQL use pg_dump -n strongroom (see docs/operations.md, Operate it)",
    )
    .argument("<file>", "the backup file to create (an existing file is not overwritten)")
    .addOption(dataDirOption())
    .option("--key-out <path>", "also copy the data directory's master.key to this path (mode 0600)")
    .action(async (file: string, flags: { dataDir: string; keyOut?: string }) => {
      try {
        const config = resolveConfig({ dataDir: flags.dataDir });
        if (config.databaseUrl) {
          throw new Error(
            `DATABASE_URL is set: back PostgreSQL up with pg_dump --schema=${config.databaseSchema ?? "strongroom"} (see "Operate it" in docs/operations.md)`,
          );
        }
        if (config.dataDir.startsWith("memory://")) throw new Error("an in-memory store has nothing to back up");
        if (existsSync(file)) throw exists(file);
        const shamir = config.seal.provider === "shamir";
        if (shamir && flags.keyOut)
          throw new Error("STRONGROOM_SEAL=shamir: the store has no master key to copy; its root key is in its key shares");
        const fromServer = await backupThroughControlSocket(config.dataDir);
        const dump = fromServer ?? (await dumpEmbeddedStore(config.dataDir));
        try {
          writeFileSync(file, dump, { mode: 0o600, flag: "wx" });
        } catch (error) {
          throw (error as NodeJS.ErrnoException).code === "EEXIST" ? exists(file) : error;
        }
        const keyFile = join(config.dataDir, "master.key");
        if (flags.keyOut) {
          if (config.masterKey) throw new Error("STRONGROOM_MASTER_KEY is set: the key is yours to keep, there is no key file to copy");
          copyFileSync(keyFile, flags.keyOut, constants.COPYFILE_EXCL);
          chmodSync(flags.keyOut, 0o600);
        }
        process.stdout.write(
          JSON.stringify(
            { backup: file, bytes: dump.length, online: fromServer !== undefined, ...(flags.keyOut ? { keyFile: flags.keyOut } : {}) },
            null,
            2,
          ) + "\n",
        );
        if (!flags.keyOut) {
          process.stderr.write(
            shamir
              ? "strongroom: the backup opens with a quorum of the store's key shares (STRONGROOM_SEAL=shamir), which it does not hold\n"
              : config.masterKey
                ? "strongroom: the backup is sealed under STRONGROOM_MASTER_KEY; restoring it needs that key\n"
                : `strongroom: the backup does not hold the master key; without ${existsSync(keyFile) ? keyFile : "the data directory's master.key"} ` +
                  "it cannot be opened. Keep a copy of that file (or pass --key-out), stored apart from the backup\n",
          );
        }
      } catch (error) {
        fail(error);
      }
    });
}
