import { Command } from "commander";
import { resolveConfig, type ConfigFlags } from "../../config.js";
import { openServices } from "../../open-services.js";
import { fail, withCommonOptions } from "../common-options.js";

export function keysCommand(): Command {
  return withCommonOptions(new Command("keys"))
    .description("print the server's signer public key (pass it to the SDKs as dangerouslyOverrideSignerPublicKey)")
    .action(async (flags: ConfigFlags) => {
      try {
        const services = await openServices(resolveConfig(flags));
        try {
          process.stdout.write(JSON.stringify({ signerPublicKey: services.signer.publicKeyHex }, null, 2) + "\n");
        } finally {
          await services.db.close();
        }
      } catch (error) {
        fail(error);
      }
    });
}
