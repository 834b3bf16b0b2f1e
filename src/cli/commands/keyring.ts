import { Command } from "commander";
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { resolveConfig, type Config } from "../../config.js";
import { loadOrCreateKeyFile, parseMasterKey } from "../../crypto/key-encryption.js";
import { Custody } from "../../crypto/keyring/custody.js";
import { keyringReport } from "../../crypto/keyring/keyring-report.js";
import { addKeyVersion, readKeyRows, readSealRow, ROTATION_GRACE_POLLS } from "../../crypto/keyring/keyring-rows.js";
import { recoveryPrivateKey, unwrapWithRecovery } from "../../crypto/keyring/recovery.js";
import { prepareKeyVersion, replaceDataKeys } from "../../crypto/keyring/replace-data-keys.js";
import { resealBatch, retireOlderVersions } from "../../crypto/keyring/reseal.js";
import { openProviderWrapper } from "../../crypto/keyring/providers.js";
import { localRootWrapper, type RootWrapper } from "../../crypto/keyring/root-wrapper.js";
import { checkSharing, parseShare, splitSecret } from "../../crypto/keyring/shares.js";
import { SEALED_COLUMNS } from "../../crypto/rekey.js";
import { keyringThroughControlSocket } from "../../server/control-socket.js";
import type { Database } from "../../store/database.js";
import { DataDirInUseError } from "../../store/data-dir-lock.js";
import { openStore } from "../../store/open.js";
import { purgeOldRowVersions } from "../../store/purge-old-row-versions.js";
import { readSharesFile, unsealWithSharesFile } from "../shares-file.js";
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

/** The keyring unsealed in this process: by the provider, or (Shamir) with --unseal-shares-file. */
async function unsealHere(db: Database, config: Config, sharesFile: string | undefined): Promise<Custody> {
  const custody = await Custody.open(db, config.seal, fileKeyOf(config));
  if (custody.sealed && sharesFile) await unsealWithSharesFile(custody, sharesFile);
  if (custody.sealed) throw new Error("the keyring is sealed by Shamir shares: give a quorum of them with --unseal-shares-file");
  return custody;
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
async function rotate(flags: { dataDir: string; background?: boolean; unsealSharesFile?: string }): Promise<void> {
  const config = resolveConfig({ dataDir: flags.dataDir });
  if (config.dataDir.startsWith("memory://") && !config.databaseUrl) throw new Error("an in-memory store has no keyring to rotate");
  const db = await openOrInUse(config);
  if (!db) {
    const answer = await keyringThroughControlSocket(config.dataDir, "rotate");
    if (!answer) throw new Error(`${config.dataDir} is in use and no server answers on its control socket`);
    return print({ ...answer, background: true });
  }
  try {
    const custody = await unsealHere(db, config, flags.unsealSharesFile);
    try {
      const wrapper = custody.wrapper!;
      if (!config.databaseUrl) {
        const prepared = await prepareKeyVersion(db, wrapper);
        try {
          const { version, resealed } = await db.transaction((tx) => replaceDataKeys(tx, custody.keyring, prepared));
          const purged = await purgeOldRowVersions(db, ["keyring", ...new Set(SEALED_COLUMNS.map((c) => c.table))]);
          return print({ version, resealed, purged });
        } finally {
          prepared.dataKey.fill(0);
        }
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

/**
 * The wrapper the keyring moves to in a recovery: the configured provider's (the file key, the token's key — created
 * there when the token has none — or the KMS key), or for Shamir a new root key and its shares.
 */
async function targetWrapper(
  config: Config,
  flags: RecoverFlags,
): Promise<{ wrapper: RootWrapper; keyShares?: string[]; sharing?: [number, number] }> {
  if (config.seal.provider !== "shamir") return { wrapper: await openProviderWrapper(config.seal, fileKeyOf(config), { create: true }) };
  const shares = Number(flags.keyShares);
  const threshold = Number(flags.keyThreshold);
  checkSharing(shares, threshold, "--key-shares", "--key-threshold");
  const rootKey = randomBytes(32);
  const keyShares = await splitSecret(rootKey, shares, threshold);
  const wrapper = localRootWrapper(rootKey, "shamir");
  rootKey.fill(0);
  return { wrapper, keyShares, sharing: [shares, threshold] };
}

interface RecoverFlags {
  dataDir: string;
  recoverySharesFile: string;
  keyShares?: string;
  keyThreshold?: string;
}

/**
 * The recovery path: a quorum of the recovery shares opens every data key (wrapped to the recovery key beside the
 * provider's wrapping), and the keyring is wrapped anew by the configured provider (STRONGROOM_SEAL: the file key,
 * another token, another KMS key, or Shamir with a new root key and new shares). The root that wrapped it before (lost
 * shares, a lost master key, a lost token or KMS key) is not needed. Stop every server first.
 */
async function recover(flags: RecoverFlags): Promise<void> {
  const config = resolveConfig({ dataDir: flags.dataDir });
  const db = await open(config);
  try {
    const seal = await readSealRow(db);
    if (!seal?.recovery_public_key) throw new Error("this store's keyring has no recovery key (init --recovery-shares adds one)");
    const shares = readSharesFile(flags.recoverySharesFile, "recoveryShares").map((s) => parseShare(s));
    const privateKey = await recoveryPrivateKey(shares, seal.recovery_public_key);
    const { wrapper, keyShares, sharing } = await targetWrapper(config, flags);
    try {
      const rows = await readKeyRows(db);
      const rewrapped: { version: number; wrapped: string }[] = [];
      for (const row of rows) {
        if (!row.recovery_wrapped_key) throw new Error(`key version ${row.version} is not wrapped to the recovery key`);
        const dataKey = await unwrapWithRecovery(row.recovery_wrapped_key, row.version, privateKey, seal.recovery_public_key);
        rewrapped.push({ version: row.version, wrapped: await wrapper.wrap(dataKey, row.version) });
        dataKey.fill(0);
      }
      await db.transaction(async (tx) => {
        for (const { version, wrapped } of rewrapped) {
          await tx.query("UPDATE keyring SET wrapped_key = $2, wrapped_by = $3 WHERE version = $1", [version, wrapped, wrapper.label]);
        }
        await tx.query("UPDATE keyring_seal SET provider = $1, key_shares = $2, key_threshold = $3", [
          config.seal.provider,
          sharing?.[0] ?? null,
          sharing?.[1] ?? null,
        ]);
      });
      // The versions wrapped by the lost provider stay readable to it in dead row versions: rewritten away.
      const purged = await purgeOldRowVersions(db, ["keyring", "keyring_seal"]);
      print({
        recovered: rewrapped.map((r) => r.version),
        wrappedBy: wrapper.label,
        purged,
        ...(keyShares ? { keyShares, keyThreshold: sharing![1] } : {}),
      });
    } finally {
      privateKey.fill(0);
      await wrapper.close();
    }
  } finally {
    await db.close();
  }
}

export function keyringCommand(): Command {
  const keyring = new Command("keyring").description(
    'the keyring of data-encryption keys under the seal provider (STRONGROOM_SEAL): status, rotation, recovery. See docs/operations.md, "The keyring"',
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
    .option("--unseal-shares-file <file>", "STRONGROOM_SEAL=shamir: a quorum of the key shares (a JSON array, or init's output)")
    .action((flags: { dataDir: string; background?: boolean; unsealSharesFile?: string }) => rotate(flags).catch(fail));
  keyring
    .command("recover")
    .description(
      "open the keyring with a quorum of its recovery shares and wrap it under the configured provider (STRONGROOM_SEAL), " +
        "when the root that wrapped it (the Shamir shares, the master key, the token, the KMS key) is lost. Stop every server first",
    )
    .addOption(dataDirOption())
    .requiredOption("--recovery-shares-file <file>", "a quorum of the recovery shares (a JSON array, or init's output)")
    .option("--key-shares <n>", "to STRONGROOM_SEAL=shamir: split the new root key into this many shares (printed once)")
    .option("--key-threshold <t>", "to STRONGROOM_SEAL=shamir: how many shares unseal")
    .action((flags: RecoverFlags) => recover(flags).catch(fail));
  return keyring;
}
