import { Command, Option } from "commander";
import { resolveConfig, type ConfigFlags } from "../../config.js";
import { startServer, type RunningServer } from "../../server/start.js";
import { fail, withCommonOptions } from "../common-options.js";

/** SIGTERM and SIGINT drain and stop the server, then exit 0; a second signal exits at once. */
export function stopOnSignals(close: () => Promise<void>, log: (message: string) => void): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    log(`${signal}: finishing requests in flight, then stopping`);
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`strongroom: while stopping: ${(error as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

async function warnWithoutOrganization(server: RunningServer): Promise<void> {
  const [any] = await server.services.db.query("SELECT 1 FROM organizations LIMIT 1");
  if (any) return;
  server.app.log.warn(
    "no organization yet: stop the server and run `strongroom init` on the same data directory (or DATABASE_URL) to create one, " +
      "or use `strongroom dev` for a development server that creates one for you",
  );
}

export function serveCommand(): Command {
  return withCommonOptions(new Command("serve"))
    .description("serve the API (what `npm start` runs)")
    .addOption(
      new Option("--metrics-port <port>", "serve Prometheus metrics at /metrics on this port (off by default)").env("METRICS_PORT"),
    )
    .action(async (flags: ConfigFlags) => {
      try {
        const server = await startServer(resolveConfig(flags));
        stopOnSignals(
          () => server.close(),
          (message) => server.app.log.info(message),
        );
        await warnWithoutOrganization(server);
      } catch (error) {
        fail(error);
      }
    });
}
