import cluster from "node:cluster";
import { Command, Option } from "commander";
import { resolveConfig, type Config, type ConfigFlags } from "../../config.js";
import { standardOutputLog, type LogDestination } from "../../http/log-destination.js";
import { consoleAddress } from "../../server/browser-address.js";
import { runPrimary } from "../../server/cluster/primary.js";
import { runWorker } from "../../server/cluster/worker.js";
import { resolveWorkerCount } from "../../server/cluster/worker-count.js";
import { createRootOnFirstStart, hasAnyOrganization, NO_ORGANIZATION_YET } from "../../server/first-start.js";
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

/** The embedded store in a directory (not PostgreSQL, not memory://): the store `serve` initializes on its first start. */
const embeddedOnDisk = (config: Config) => config.databaseUrl === undefined && !config.dataDir.startsWith("memory://");

/** Logs where the first start of an empty data directory put the root organization's credentials, and where to sign in. */
function logFirstStart(server: RunningServer, path: string): void {
  server.app.log.info(
    { initialCredentials: path, console: consoleAddress(server.url) },
    `first start: created the root organization; its root API key is in ${path} (readable by this user only). ` +
      `Sign in to the console at ${consoleAddress(server.url)} with its organizationId and apiPrivateKey, ` +
      "then keep the file somewhere safe or delete it (--no-init skips this step)",
  );
}

/**
 * Each process unseals with its own shares, and the worker processes of one `serve` share its ports: an unseal would
 * reach whichever worker the kernel picked. With Shamir, one process per `serve` (a cluster runs several `serve`s).
 */
function shamirWorkerCount(setting: string | undefined): number {
  if (setting === undefined || setting.trim() === "" || setting.trim() === "1") return 1;
  throw new Error(
    `--workers ${setting.trim()}: with STRONGROOM_SEAL=shamir each process is unsealed with its own shares, so \`serve\` runs one ` +
      "process; for several, run several `strongroom serve` (each on its own port) behind the load balancer and unseal each",
  );
}

type ServeFlags = ConfigFlags & { init: boolean; workers?: string };

export function serveCommand(): Command {
  return withCommonOptions(new Command("serve"))
    .description(
      "serve the API and the console (what `npm start` runs). On the embedded store, the first start of an empty data " +
        "directory creates the root organization and writes its credentials to initial-credentials.json there",
    )
    .addOption(
      new Option("--metrics-port <port>", "serve Prometheus metrics at /metrics on this port (off by default)").env("METRICS_PORT"),
    )
    .addOption(
      new Option("--no-init", "do not create a root organization on the first start of an empty data directory").env("STRONGROOM_NO_INIT"),
    )
    .addOption(
      new Option(
        "--workers <n>",
        "worker processes sharing the ports (default: one per CPU core on PostgreSQL; the embedded store runs one)",
      ).env("STRONGROOM_WORKERS"),
    )
    .action(async (flags: ServeFlags) => {
      // A reader of standard error that went away must not turn a message into an uncaught EPIPE.
      process.stderr.on("error", () => undefined);
      const logs = standardOutputLog();
      try {
        const config = resolveConfig(flags);
        if (cluster.isWorker) return await runWorker(config, logs, LOG_FINISH_MS);
        const workers =
          config.seal.provider === "shamir"
            ? shamirWorkerCount(flags.workers)
            : resolveWorkerCount(flags.workers, config.databaseUrl !== undefined);
        if (workers > 1) return await runPrimary({ config, workers, logs, logFinishMs: LOG_FINISH_MS });
        // The first start of an empty data directory creates the root organization and writes its credentials before
        // the server listens, so they are there once /health answers. A Shamir keyring is created by `strongroom init
        // --key-shares`, which prints the shares: never at first start.
        let initialCredentials: string | undefined;
        const server = await startServer(config, undefined, logs.stream, {
          beforeListen: async (services) => {
            if (embeddedOnDisk(config) && flags.init && !services.custody.sealed)
              initialCredentials = await createRootOnFirstStart(services, config.dataDir);
          },
        });
        stopOnSignals(
          () => server.close(),
          (message) => server.app.log.info(message),
          logs,
        );
        if (initialCredentials) logFirstStart(server, initialCredentials);
        if (!(await hasAnyOrganization(server.services.db))) server.app.log.warn(NO_ORGANIZATION_YET);
      } catch (error) {
        await logs.finish(LOG_FINISH_MS);
        fail(error);
      }
    });
}
