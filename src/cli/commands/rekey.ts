import type { Command } from "commander";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { resolveConfig } from "../../config.js";
import { createKeyEncryptionKey, parseMasterKey } from "../../crypto/key-encryption.js";
import { Custody } from "../../crypto/keyring/custody.js";
import { fileKeyOpensStore, prepareKeyVersion, replaceDataKeys } from "../../crypto/keyring/replace-data-keys.js";
import { localRootWrapper } from "../../crypto/keyring/root-wrapper.js";
import { SEALED_COLUMNS } from "../../crypto/rekey.js";
import type { Queryable } from "../../store/database.js";
import { openStore } from "../../store/open.js";
import { purgeOldRowVersions, type PurgeReport } from "../../store/purge-old-row-versions.js";
import { dataDirOption, fail } from "./data-dir-option.js";
import { recordAuditEvent } from "../../audit/record.js";

interface RekeyFlags {
  dataDir: string;
  newKeyFile?: string;
}

/** Whether `key` opens the store (its keyring, or before the keyring its signer key): tells which of two keys the store is under. */
const opensStore = (db: Queryable, key: Buffer) =>
  fileKeyOpensStore(db, key, (sealed) => createKeyEncryptionKey(key).open(sealed, "server-key:signer"));

/**
 * The rows' earlier versions, sealed under the old key, stay in the table files and the write-ahead log until they
 * are purged: rewritten here (docs/operations.md, "Rotate the master key", says what stays elsewhere).
 */
async function purgeOldCiphertexts(db: Parameters<typeof purgeOldRowVersions>[0]): Promise<PurgeReport> {
  const purged = await purgeOldRowVersions(db, ["keyring", ...new Set(SEALED_COLUMNS.map((c) => c.table))]);
  for (const warning of purged.warnings) process.stderr.write(`strongroom: ${warning}\n`);
  return purged;
}

const readKey = (path: string) => parseMasterKey(readFileSync(path, "utf8"));

export function registerRekey(program: Command): void {
  program
    .command("rekey")
    .description(
      "rotate the master key (STRONGROOM_SEAL=file): a new data key wrapped under a new master key, and every sealed secret (mnemonics, " +
        "private keys, server keys, OAuth client secrets, one-time-code secrets, auth proxy keys) re-sealed under it, in one " +
        "transaction; stop every server first. Embedded with a " +
        "key file, the new key replaces master.key; with STRONGROOM_MASTER_KEY, the new key is printed (or written to " +
        "--new-key-file) and must replace STRONGROOM_MASTER_KEY on every process. STRONGROOM_NEW_MASTER_KEY chooses the new key",
    )
    .addOption(dataDirOption())
    .option("--new-key-file <path>", "with STRONGROOM_MASTER_KEY: write the new key to this file (mode 0600) instead of printing it")
    .action(async (flags: RekeyFlags) => {
      try {
        const config = resolveConfig({ dataDir: flags.dataDir });
        if (config.dataDir.startsWith("memory://")) throw new Error("an in-memory store has no key to rotate");
        if (config.seal.provider !== "file")
          throw new Error(
            `rekey replaces the file provider's master key; with STRONGROOM_SEAL=${config.seal.provider} there is none: ` +
              "`strongroom keyring rotate` adds a data key version under the provider's root",
          );
        const keyFile = join(config.dataDir, "master.key");
        const pendingFile = `${keyFile}.next`;
        const usesKeyFile = !config.masterKey;
        if (usesKeyFile && !existsSync(keyFile)) throw new Error(`there is no ${keyFile} to rotate (and STRONGROOM_MASTER_KEY is not set)`);
        const newKey = process.env.STRONGROOM_NEW_MASTER_KEY ? parseMasterKey(process.env.STRONGROOM_NEW_MASTER_KEY) : randomBytes(32);
        // Opening the store takes the data directory's lock: refused while a server runs on it.
        const db = await openStore({ databaseUrl: config.databaseUrl, databaseSchema: config.databaseSchema, dataDir: config.dataDir });
        try {
          let oldKey = config.masterKey ? parseMasterKey(config.masterKey) : readKey(keyFile);
          if (usesKeyFile && existsSync(pendingFile)) {
            // An earlier rekey stopped between its commit and putting the new key in place: finish or undo it.
            const pending = readKey(pendingFile);
            if (await opensStore(db, pending)) {
              renameSync(pendingFile, keyFile);
              oldKey = pending;
              process.stderr.write(`strongroom: finished an interrupted rekey: ${keyFile} now holds the key the store is sealed under\n`);
            } else unlinkSync(pendingFile);
          }
          if (oldKey.equals(newKey)) throw new Error("the new key is the current key");
          if (!(await opensStore(db, oldKey))) throw new Error("the current master key does not open this store: nothing was changed");
          // Opens the keyring with the current key (creating it on a store from before the keyring).
          const custody = await Custody.open(db, config.seal, () => oldKey);
          // The new key is on disk before the commit that makes it the only key that opens the store.
          const hex = newKey.toString("hex");
          const written = usesKeyFile ? pendingFile : flags.newKeyFile;
          if (written) writeFileSync(written, hex + "\n", { mode: 0o600, flag: usesKeyFile ? "w" : "wx" });
          let resealed;
          const next = localRootWrapper(newKey, "file");
          const prepared = await prepareKeyVersion(db, next);
          try {
            resealed = await db.transaction(async (tx) => {
              const { resealed: counts } = await replaceDataKeys(tx, custody.keyring, prepared);
              await recordAuditEvent(tx, config.audit, {
                organizationId: null,
                time: new Date(),
                type: "master-key.rotated",
                details: { by: "strongroom rekey", resealed: counts },
              });
              return counts;
            });
          } catch (error) {
            if (written) unlinkSync(written);
            throw error;
          } finally {
            prepared.dataKey.fill(0);
            await next.close();
            await custody.seal();
          }
          if (usesKeyFile) renameSync(pendingFile, keyFile);
          const purged = await purgeOldCiphertexts(db);
          if (usesKeyFile) {
            process.stdout.write(JSON.stringify({ resealed, purged, keyFile }, null, 2) + "\n");
            return;
          }
          process.stdout.write(
            JSON.stringify(
              { resealed, purged, ...(flags.newKeyFile ? { newKeyFile: flags.newKeyFile } : { newMasterKey: hex }) },
              null,
              2,
            ) + "\n",
          );
          process.stderr.write(
            "strongroom: every secret is now sealed under the new key; the old STRONGROOM_MASTER_KEY opens nothing. " +
              "Set STRONGROOM_MASTER_KEY to the new key on every process before starting them again\n",
          );
        } finally {
          await db.close();
        }
      } catch (error) {
        fail(error);
      }
    });
}
