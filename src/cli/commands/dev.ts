import { Command, Option } from "commander";
import { startDevServer } from "../../dev/start-dev-server.js";
import { readSeedFile } from "../../dev/seed.js";
import { consoleAddress } from "../../server/browser-address.js";
import { fail, withListenOptions } from "../common-options.js";
import { stopOnSignals } from "./serve.js";

interface DevFlags {
  dataDir?: string;
  host: string;
  port: string;
  authProxyPort: string;
  organizationId?: string;
  apiPublicKey?: string;
  apiPrivateKey?: string;
  seed?: string;
  allowedHosts?: string;
  envPrefix?: string;
}

/** The pinned values a prefix renames (TURNKEY_ORGANIZATION_ID…), with their flags' option names. */
const PINNED = [
  ["organizationId", "ORGANIZATION_ID"],
  ["apiPrivateKey", "API_PRIVATE_KEY"],
  ["apiPublicKey", "API_PUBLIC_KEY"],
] as const;

/**
 * With --env-prefix, the pinned values come from the prefixed variables (the hosted service's examples read
 * TURNKEY_ORGANIZATION_ID, TURNKEY_API_PRIVATE_KEY…); a flag given on the command line still wins.
 */
function withPrefixedEnvironment(flags: DevFlags, command: Command): DevFlags {
  const prefix = flags.envPrefix;
  if (!prefix) return flags;
  if (!/^[A-Z][A-Z0-9_]*$/.test(prefix)) throw new Error(`--env-prefix must be upper-case letters, digits and _, e.g. TURNKEY_`);
  const adjusted: DevFlags = { ...flags };
  for (const [key, name] of PINNED) {
    if (command.getOptionValueSource(key) === "cli") continue;
    const value = process.env[`${prefix}${name}`];
    if (value) adjusted[key] = value;
    else delete adjusted[key];
  }
  return adjusted;
}

const port = (value: string) => Number(value);

export function devCommand(): Command {
  return withListenOptions(new Command("dev"), { port: "8080", authProxyPort: "8090" })
    .description(
      "a development server: embedded store (in memory unless --data-dir), a root organization, user and API key created " +
        "on first start (or pinned), the auth proxy enabled, an optional seed, email and SMS kept in GET /dev/inbox, and " +
        "POST /dev/reset and POST /dev/clock. Prints ORGANIZATION_ID=… lines for .env on stdout; logs go to stderr",
    )
    .addOption(
      new Option("--data-dir <dir>", "keep the store in this directory (default: in memory, gone on stop)").env("STRONGROOM_DATA_DIR"),
    )
    .addOption(new Option("--organization-id <uuid>", "the root organization's id").env("ORGANIZATION_ID"))
    .addOption(new Option("--api-private-key <hex>", "the root user's P-256 API private key (64 hex)").env("API_PRIVATE_KEY"))
    .addOption(new Option("--api-public-key <hex>", "its compressed public key, checked against the private key").env("API_PUBLIC_KEY"))
    .addOption(
      new Option("--seed <file>", "a JSON fixture of users, tags, wallets, policies and sub-organizations to create").env(
        "STRONGROOM_SEED",
      ),
    )
    .addOption(
      new Option(
        "--allowed-hosts <names>",
        "comma-separated host names the /dev/ controls answer besides localhost, *.localhost, 127.0.0.0/8 and [::1] (e.g. a container's service name)",
      ).env("STRONGROOM_DEV_ALLOWED_HOSTS"),
    )
    .addOption(
      new Option(
        "--env-prefix <prefix>",
        "print the .env names with this prefix (e.g. TURNKEY_: TURNKEY_ORGANIZATION_ID=…, TURNKEY_BASE_URL=…, as the hosted " +
          "service's examples read them), and read the pinned ORGANIZATION_ID / API_PRIVATE_KEY / API_PUBLIC_KEY under it",
      ).env("STRONGROOM_ENV_PREFIX"),
    )
    .action(async (given: DevFlags, command: Command) => {
      try {
        const flags = withPrefixedEnvironment(given, command);
        const proxyOff = ["off", "none", "false", "disabled"].includes(flags.authProxyPort.toLowerCase());
        const server = await startDevServer({
          host: flags.host,
          port: port(flags.port),
          ...(proxyOff ? {} : { authProxyPort: port(flags.authProxyPort) }),
          ...(flags.dataDir ? { dataDir: flags.dataDir } : {}),
          ...(flags.organizationId ? { organizationId: flags.organizationId } : {}),
          ...(flags.apiPrivateKey ? { apiPrivateKey: flags.apiPrivateKey } : {}),
          ...(flags.apiPublicKey ? { apiPublicKey: flags.apiPublicKey } : {}),
          ...(flags.seed ? { seed: readSeedFile(flags.seed) } : {}),
          ...(flags.allowedHosts ? { allowedHosts: flags.allowedHosts.split(",") } : {}),
          logStream: process.stderr,
          echo: (text) => process.stderr.write(text),
          env: process.env,
        });
        stopOnSignals(
          () => server.close(),
          (message) => process.stderr.write(`strongroom dev: ${message}\n`),
        );
        process.stdout.write(server.envLines(flags.envPrefix));
        if (flags.seed) {
          process.stderr.write(
            `strongroom dev: ${server.seeded ?? `the seed ${flags.seed} was applied on this data directory's first start, not again`}\n`,
          );
        }
        process.stderr.write(
          `strongroom dev: serving on ${server.baseUrl}${server.authProxyUrl ? ` (auth proxy on ${server.authProxyUrl})` : ""}; ` +
            `console: ${consoleAddress(server.baseUrl)} (sign in with ORGANIZATION_ID and API_PRIVATE_KEY); ` +
            `inbox: curl -H 'X-Strongroom-Dev: 1' ${server.baseUrl}/dev/inbox; ${flags.dataDir ? `data in ${flags.dataDir}` : "in memory: everything is gone on stop"}\n`,
        );
      } catch (error) {
        fail(error);
      }
    });
}
