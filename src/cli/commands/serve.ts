import { Command, Option } from "commander";
import { resolveConfig, type ConfigFlags } from "../../config.js";
import { standardOutputLog, type LogDestination } from "../../http/log-destination.js";
import { startServer, type RunningServer } from "../../server/start.js";
import { fail, withCommonOptions } from "../common-options.js";

/** How long the log's last lines may take to be written out before the process exits anyway. */
const LOG_FINISH_MS = 2000;

/**
 * SIGTERM and SIGINT drain and stop the server, then exit 0; a second signal exits at once. With `logs`, the
 * log is finished (at most LOG_FINISH_MS) before exiting, and abandoned on a second signal, so no exit ever
 * waits on whoever reads the output.
 */
export function stopOnSignals(close: () => Promise<void>, log: (message: string) => void, logs?: LogDestination): void {
  let stopping = false;
  const exit = async (code: number) => {
    await logs?.finish(LOG_FINISH_MS);
    process.exit(code);
  };
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      logs?.abandon();
      process.exit(1);
    }
    stopping = true;
    log(`${signal}: finishing requests in flight, then stopping`);
    close().then(
      () => exit(0),
      (error: unknown) => {
        process.stderr.write(`strongroom: while stopping: ${(error as Error).message}\n`);
        return exit(1);
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
      // A reader of standard error that went away must not turn a message into an uncaught EPIPE.
      process.stderr.on("error", () => undefined);
      const logs = standardOutputLog();
      try {
        const server = await startServer(resolveConfig(flags), undefined, logs.stream);
        stopOnSignals(
          () => server.close(),
          (message) => server.app.log.info(message),
          logs,
        );
        await warnWithoutOrganization(server);
      } catch (error) {
        await logs.finish(LOG_FINISH_MS);
        fail(error);
      }
    });
}
