import { Command } from "commander";
import { setTimeout as sleep } from "node:timers/promises";
import { resolveConfig, type Config } from "../../config.js";
import { loadOrCreateKeyFile, parseMasterKey } from "../../crypto/key-encryption.js";
import { Custody } from "../../crypto/keyring/custody.js";
import { keyringReport } from "../../crypto/keyring/keyring-report.js";
import { addKeyVersion, ROTATION_GRACE_POLLS } from "../../crypto/keyring/keyring-rows.js";
import { replaceDataKeys } from "../../crypto/keyring/replace-data-keys.js";
import { resealBatch, retireOlderVersions } from "../../crypto/keyring/reseal.js";
import { SEALED_COLUMNS } from "../../crypto/rekey.js";
import { keyringThroughControlSocket } from "../../server/control-socket.js";
import type { Database } from "../../store/database.js";
import { DataDirInUseError } from "../../store/data-dir-lock.js";
import { openStore } from "../../store/open.js";
import { purgeOldRowVersions } from "../../store/purge-old-row-versions.js";
import { dataDirOption, fail } from "./data-dir-option.js";

const print = (value: unknown): void => void process.stdout.write(JSON.stringify(value, null, 2) + "\n");

const open = (config: Config) =>
  openStore({ databaseUrl: config.databaseUrl, databaseSchema: config.databaseSchema, dataDir: config.dataDir });

/** The file provider's key, as the server reads it. */
const fileKeyOf = (config: Config) => () => (config.masterKey ? parseMasterKey(config.masterKey) : loadOrCreateKeyFile(config.dataDir));

/**
 * The store opened by this command, or, when a server holds the embedded store, undefined (the caller then asks that
 * server through its control socket).
 */
async function openOrInUse(config: Config): Promise<Database | undefined> {
  try {
    return await open(config);
  } catch (error) {
    if (error instanceof DataDirInUseError) return undefined;
    throw error;
  }
}

async function status(flags: { dataDir: string }): Promise<void> {
  const config = resolveConfig({ dataDir: flags.dataDir });
  const db = await openOrInUse(config);
  if (!db) {
    const report = await keyringThroughControlSocket(config.dataDir, "status");
    if (!report) throw new Error(`${config.dataDir} is in use and no server answers on its control socket`);
    return print(report);
  }
  try {
    print(await keyringReport(db));
  } finally {
    await db.close();
  }
}

/**
 * Rotation. Embedded with a server running: that server adds the version and moves the values in the background.
 * PostgreSQL: the version is added; unless --background, this command then waits out the grace (servers switch to
 * the new version) and moves the values itself, with any running server, and retires and purges. Embedded with no
 * server: all of it at once, in one transaction.
 */
async function rotate(flags: { dataDir: string; background?: boolean }): Promise<void> {
  const config = resolveConfig({ dataDir: flags.dataDir });
  if (config.dataDir.startsWith("memory://") && !config.databaseUrl) throw new Error("an in-memory store has no keyring to rotate");
  const db = await openOrInUse(config);
  if (!db) {
    const answer = await keyringThroughControlSocket(config.dataDir, "rotate");
    if (!answer) throw new Error(`${config.dataDir} is in use and no server answers on its control socket`);
    return print({ ...answer, background: true });
  }
  try {
    const custody = await Custody.open(db, config.seal, fileKeyOf(config));
    try {
      const wrapper = custody.wrapper!;
      if (!config.databaseUrl) {
        const { version, resealed } = await db.transaction((tx) => replaceDataKeys(tx, custody.keyring, wrapper));
        const purged = await purgeOldRowVersions(db, ["keyring", ...new Set(SEALED_COLUMNS.map((c) => c.table))]);
        return print({ version, resealed, purged });
      }
      const graceMs = ROTATION_GRACE_POLLS * config.seal.pollMs;
      const version = await addKeyVersion(db, wrapper, graceMs);
      if (flags.background) return print({ version, background: true });
      await sleep(2 * graceMs + 100);
      await custody.refresh();
      let moved = 0;
      for (let batch = await resealBatch(db, custody.keyring); batch > 0; batch = await resealBatch(db, custody.keyring)) moved += batch;
      print({ version, moved, ...(await retireOlderVersions(db, custody.keyring)) });
    } finally {
      await custody.seal();
    }
  } finally {
    await db.close();
  }
}

export function keyringCommand(): Command {
  const keyring = new Command("keyring").description(
    'the keyring of data-encryption keys under the seal provider (STRONGROOM_SEAL): status and rotation. See docs/operations.md, "The keyring"',
  );
  keyring
    .command("status")
    .description("the seal provider, each key version (what wraps it, how many values it seals) and values not yet moved into the keyring")
    .addOption(dataDirOption())
    .action((flags: { dataDir: string }) => status(flags).catch(fail));
  keyring
    .command("rotate")
    .description(
      "add a data key version: new values are sealed under it, the values under older versions are moved to it and the older " +
        "versions retired, and what they opened is purged from the store's files. Works while servers run",
    )
    .addOption(dataDirOption())
    .option("--background", "PostgreSQL: add the version and return; the running servers move the values")
    .action((flags: { dataDir: string; background?: boolean }) => rotate(flags).catch(fail));
  return keyring;
}
