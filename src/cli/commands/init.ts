import { Command } from "commander";
import { resolveConfig, type ConfigFlags } from "../../config.js";
import { initRootOrganization } from "../../domains/organizations/init-root-organization.js";
import { openServices } from "../../open-services.js";
import { fail, withCommonOptions } from "../common-options.js";

type InitFlags = ConfigFlags & { apiPublicKey?: string; organizationName: string; userName: string; userEmail?: string };

export function initCommand(): Command {
  return withCommonOptions(new Command("init"))
    .description(
      "create a root organization with a root user and a P-256 API key, and print them as JSON " +
        "(organizationId, userId, apiKeyId, apiPublicKey, apiPrivateKey when generated, signerPublicKey); " +
        "run it while no server holds the data directory",
    )
    .option("--api-public-key <hex>", "register this compressed P-256 public key instead of generating a key pair")
    .option("--organization-name <name>", "name of the new organization", "Root organization")
    .option("--user-name <name>", "name of the root user", "Root user")
    .option("--user-email <email>", "email of the root user")
    .action(async (flags: InitFlags) => {
      try {
        const services = await openServices(resolveConfig(flags));
        try {
          const result = await initRootOrganization(services, flags);
          process.stdout.write(JSON.stringify(result, null, 2) + "\n");
        } finally {
          await services.db.close();
        }
      } catch (error) {
        fail(error);
      }
    });
}
