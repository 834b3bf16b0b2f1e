import { Command } from "commander";
import { existsSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { resolveConfig, type ConfigFlags } from "../../config.js";
import { initRootOrganization, type InitOptions, type InitResult } from "../../domains/organizations/init-root-organization.js";
import { openServices } from "../../open-services.js";
import { controlSocketPath, initThroughControlSocket } from "../../server/control-socket.js";
import { DataDirInUseError } from "../../store/data-dir-lock.js";
import { fail, withStoreOptions } from "../common-options.js";

type InitFlags = ConfigFlags & {
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
async function createRoot(flags: InitFlags, options: InitOptions & { ifEmpty?: boolean }): Promise<InitResult | undefined> {
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
    return await initRootOrganization(services, options);
  } finally {
    await services.custody.seal();
    await services.db.close();
  }
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
        "(organizationId, userId, apiKeyId, apiPublicKey, apiPrivateKey when generated, signerPublicKey). " +
        "Works while a server runs: on the embedded store through the server's control socket in the data directory",
    )
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
