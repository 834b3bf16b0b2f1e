import { Command } from "commander";
import { existsSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { resolveConfig, type ConfigFlags } from "../../config.js";
import type { InitResult } from "../../domains/organizations/init-root-organization.js";
import type { KeyringInitOptions, KeyringShares } from "../../crypto/keyring/custody.js";
import { openServices } from "../../open-services.js";
import { controlSocketPath, initKeyringAndRoot, initThroughControlSocket, type InitRequest } from "../../server/control-socket.js";
import { unsealWithSharesFile } from "../shares-file.js";
import { DataDirInUseError } from "../../store/data-dir-lock.js";
import { fail, withStoreOptions } from "../common-options.js";

type InitFlags = ConfigFlags & {
  keyShares?: string;
  keyThreshold?: string;
  recoveryShares?: string;
  recoveryThreshold?: string;
  unsealSharesFile?: string;
  apiPublicKey?: string;
  organizationName: string;
  userName: string;
  userEmail?: string;
  ifEmpty?: boolean;
  output?: string;
};

/**
 * Opens the store itself; when a server holds the embedded store (one process at a time), asks that server
 * through the control socket in the data directory (src/server/control-socket.ts).
 */
async function createRoot(flags: InitFlags, options: InitRequest): Promise<(InitResult & KeyringShares) | undefined> {
  const config = resolveConfig(flags);
  let services;
  try {
    services = await openServices(config);
  } catch (error) {
    const socket = controlSocketPath(config.dataDir);
    if (error instanceof DataDirInUseError && existsSync(socket)) return initThroughControlSocket(socket, options);
    throw error;
  }
  try {
    if (options.ifEmpty && (await services.db.query("SELECT 1 FROM organizations LIMIT 1")).length > 0) return undefined;
    if (flags.unsealSharesFile && services.custody.sealed) {
      await unsealWithSharesFile(services.custody, flags.unsealSharesFile);
    }
    return await initKeyringAndRoot(services, options);
  } finally {
    await services.custody.seal();
    await services.db.close();
  }
}

/** A whole number of a flag, or undefined when the flag is absent. */
function count(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed)) throw new Error(`${flag} must be a whole number`);
  return parsed;
}

/** --key-shares/--key-threshold and --recovery-shares/--recovery-threshold, each pair given together or not at all. */
function keyringOptions(flags: InitFlags): KeyringInitOptions {
  const pair = (shares: string | undefined, threshold: string | undefined, names: [string, string]) => {
    const n = count(shares, names[0]);
    const t = count(threshold, names[1]);
    if ((n === undefined) !== (t === undefined)) throw new Error(`give ${names[0]} and ${names[1]} together`);
    return n === undefined ? undefined : { shares: n, threshold: t! };
  };
  const keyShares = pair(flags.keyShares, flags.keyThreshold, ["--key-shares", "--key-threshold"]);
  const recovery = pair(flags.recoveryShares, flags.recoveryThreshold, ["--recovery-shares", "--recovery-threshold"]);
  return { ...(keyShares ? { keyShares } : {}), ...(recovery ? { recovery } : {}) };
}

/** Writes the JSON to `path`, mode 0600, whole or not at all. */
function writeCredentials(path: string, text: string): void {
  const draft = `${path}.${process.pid}.tmp`;
  rmSync(draft, { force: true });
  writeFileSync(draft, text, { mode: 0o600, flag: "wx" });
  renameSync(draft, path);
}

export function initCommand(): Command {
  return withStoreOptions(new Command("init"))
    .description(
      "create a root organization with a root user and a P-256 API key, and print them as JSON " +
        "(organizationId, userId, apiKeyId, apiPublicKey, apiPrivateKey when generated, signerPublicKey; and, with --key-shares or " +
        "--recovery-shares, the key shares, printed this once). " +
        "Works while a server runs: on the embedded store through the server's control socket in the data directory",
    )
    .option("--key-shares <n>", "STRONGROOM_SEAL=shamir: create the keyring under a root key split into this many shares, printed once")
    .option("--key-threshold <t>", "STRONGROOM_SEAL=shamir: how many of the shares unseal the server (2 or more)")
    .option(
      "--recovery-shares <n>",
      "add a recovery key split into this many shares, printed once: with a quorum of them `strongroom keyring recover` " +
        "opens the keyring when its root (the Shamir shares, the master key, the PKCS#11 token or the KMS key) is lost",
    )
    .option("--recovery-threshold <t>", "how many recovery shares recover the keyring (2 or more)")
    .option("--unseal-shares-file <file>", "STRONGROOM_SEAL=shamir, a keyring already initialized: unseal with these shares (a JSON array)")
    .option("--api-public-key <hex>", "register this compressed P-256 public key instead of generating a key pair")
    .option("--organization-name <name>", "name of the new organization", "Root organization")
    .option("--user-name <name>", "name of the root user", "Root user")
    .option("--user-email <email>", "email of the root user")
    .option(
      "--if-empty",
      "create it only when the store holds no organization yet (a one-shot init in compose); otherwise do nothing and exit 0",
    )
    .option("--output <file>", "write the JSON to this file (mode 0600) instead of printing it")
    .action(async (flags: InitFlags) => {
      try {
        const { apiPublicKey, organizationName, userName, userEmail, ifEmpty, output } = flags;
        const result = await createRoot(flags, {
          keyring: keyringOptions(flags),
          organizationName,
          userName,
          ...(apiPublicKey !== undefined ? { apiPublicKey } : {}),
          ...(userEmail !== undefined ? { userEmail } : {}),
          ...(ifEmpty ? { ifEmpty } : {}),
        });
        if (!result) {
          process.stderr.write("strongroom init: the store already holds an organization; nothing created (--if-empty)\n");
          return;
        }
        const text = JSON.stringify(result, null, 2) + "\n";
        if (output === undefined) process.stdout.write(text);
        else {
          writeCredentials(output, text);
          process.stderr.write(`strongroom init: created organization ${result.organizationId}; credentials written to ${output}\n`);
        }
      } catch (error) {
        fail(error);
      }
    });
}
