import { Option, type Command } from "commander";

/** Where the store lives: --data-dir (DATABASE_URL and STRONGROOM_MASTER_KEY come from the environment). */
export function withStoreOptions(command: Command): Command {
  return command.addOption(
    new Option("--data-dir <dir>", "where the embedded store and key file live").env("STRONGROOM_DATA_DIR").default(".strongroom"),
  );
}

/** Where the server listens: --host, --port, --auth-proxy-port. */
export function withListenOptions(command: Command, defaults: { port: string; authProxyPort: string }): Command {
  return command
    .addOption(new Option("--host <host>", "address to listen on").env("HOST").default("127.0.0.1"))
    .addOption(new Option("--port <port>", "port to listen on (0 picks a free one)").env("PORT").default(defaults.port))
    .addOption(
      new Option("--auth-proxy-port <port>", 'port of the auth proxy (0 picks a free one, "off" runs none)')
        .env("AUTH_PROXY_PORT")
        .default(defaults.authProxyPort),
    );
}

/** The server's store and listening options, as `serve`, `init` and `keys` take them. */
export function withCommonOptions(command: Command): Command {
  return withListenOptions(withStoreOptions(command), { port: "8080", authProxyPort: "8090" });
}

/** Ends the process with the error's message, as a command-line tool should (no stack trace). */
export function fail(error: unknown): never {
  process.stderr.write(`strongroom: ${(error as Error).message}\n`);
  process.exit(1);
}
