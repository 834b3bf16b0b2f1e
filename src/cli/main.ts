import { Command, Option } from "commander";
import { initRootOrganization } from "../domains/organizations/init-root-organization.js";
import { resolveConfig, type ConfigFlags } from "../config.js";
import { openServices } from "../open-services.js";
import { startServer } from "../server/start.js";

const program = new Command();

program
  .name("strongroom")
  .description(
    "Strongroom: a self-hosted server for organizations, credentials and wallets that speaks the Turnkey public API.\n" +
      "Storage is embedded PGlite in --data-dir unless DATABASE_URL points at PostgreSQL.",
  )
  .showHelpAfterError();

function withCommonOptions(command: Command): Command {
  return command
    .addOption(
      new Option("--data-dir <dir>", "where the embedded store and key file live").env("STRONGROOM_DATA_DIR").default(".strongroom"),
    )
    .addOption(new Option("--host <host>", "address to listen on").env("HOST").default("127.0.0.1"))
    .addOption(new Option("--port <port>", "port to listen on").env("PORT").default("8080"))
    .addOption(
      new Option("--auth-proxy-port <port>", "port of the auth proxy (0 picks a free one)").env("AUTH_PROXY_PORT").default("8090"),
    );
}

function fail(error: unknown): never {
  process.stderr.write(`strongroom: ${(error as Error).message}\n`);
  process.exit(1);
}

withCommonOptions(program.command("serve"))
  .description("serve the API (the default command of `npm start`)")
  .action(async (flags: ConfigFlags) => {
    try {
      const server = await startServer(resolveConfig(flags));
      const stop = async () => {
        await server.close();
        process.exit(0);
      };
      process.once("SIGINT", () => void stop());
      process.once("SIGTERM", () => void stop());
      server.app.log.info(
        `Strongroom serving on ${server.url} (auth proxy on ${server.authProxyUrl}); signer public key ${server.services.signer.publicKeyHex}`,
      );
    } catch (error) {
      fail(error);
    }
  });

withCommonOptions(program.command("init"))
  .description(
    "create a root organization with a root user and a P-256 API key, and print them as JSON " +
      "(organizationId, userId, apiKeyId, apiPublicKey, apiPrivateKey when generated, signerPublicKey)",
  )
  .option("--api-public-key <hex>", "register this compressed P-256 public key instead of generating a key pair")
  .option("--organization-name <name>", "name of the new organization", "Root organization")
  .option("--user-name <name>", "name of the root user", "Root user")
  .option("--user-email <email>", "email of the root user")
  .action(async (flags: ConfigFlags & { apiPublicKey?: string; organizationName: string; userName: string; userEmail?: string }) => {
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

withCommonOptions(program.command("keys"))
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

await program.parseAsync(process.argv);
