import { Command } from "commander";
import { existsSync } from "node:fs";
import { resolveConfig, type ConfigFlags } from "../../config.js";
import { initRootOrganization, type InitOptions, type InitResult } from "../../domains/organizations/init-root-organization.js";
import { openServices } from "../../open-services.js";
import { controlSocketPath, initThroughControlSocket } from "../../server/control-socket.js";
import { DataDirInUseError } from "../../store/data-dir-lock.js";
import { fail, withStoreOptions } from "../common-options.js";

type InitFlags = ConfigFlags & { apiPublicKey?: string; organizationName: string; userName: string; userEmail?: string };

/**
 * Opens the store itself; when a server holds the embedded store (one process at a time), asks that server
 * through the control socket in the data directory (src/server/control-socket.ts).
 */
async function createRoot(flags: InitFlags, options: InitOptions): Promise<InitResult> {
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
    return await initRootOrganization(services, options);
  } finally {
    await services.db.close();
  }
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
    .action(async (flags: InitFlags) => {
      try {
        const { apiPublicKey, organizationName, userName, userEmail } = flags;
        const result = await createRoot(flags, {
          organizationName,
          userName,
          ...(apiPublicKey !== undefined ? { apiPublicKey } : {}),
          ...(userEmail !== undefined ? { userEmail } : {}),
        });
        process.stdout.write(JSON.stringify(result, null, 2) + "\n");
      } catch (error) {
        fail(error);
      }
    });
}
