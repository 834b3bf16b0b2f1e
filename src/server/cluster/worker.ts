import { AggregatorRegistry } from "prom-client";
import type { Config } from "../../config.js";
import type { LogDestination } from "../../http/log-destination.js";
import { startServer, type RunningServer } from "../start.js";
import { isToWorker, WORKER_SLOT_VARIABLE, type FromWorker } from "./messages.js";

/** Sends `message` to the primary; resolves once it is written (before an exit, so it is not lost). */
const tell = (message: FromWorker) => new Promise<void>((resolve) => (process.send ? process.send(message, () => resolve()) : resolve()));

/** How long a stopping worker waits for the others to close their listeners (the primary may be gone). */
const LISTENERS_WAIT_MS = 2000;

/**
 * Tells the primary this worker closed its listeners, and resolves when it answers that every stopping worker has
 * (src/server/drain.ts), or after LISTENERS_WAIT_MS. Asked once per listener (the API's and the auth proxy's); both
 * wait for the one answer.
 */
function stoppedListening(): () => Promise<void> {
  let answered: Promise<void> | undefined;
  return () =>
    (answered ??= new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        process.off("message", onMessage);
        resolve();
      };
      const onMessage = (message: unknown) => isToWorker(message) && done();
      const timer = setTimeout(done, LISTENERS_WAIT_MS);
      process.on("message", onMessage);
      // After this poll of the event loop: the other listener (the API's or the auth proxy's) closes in it too.
      setImmediate(() => void tell({ strongroom: "stopped-listening" }));
    }));
}

/**
 * One worker of `serve --workers N`: a whole server in its own process — its store connections, background
 * workers (webhook delivery, the broadcaster, sweeps: each claims its work in the database, as separate
 * processes do) — listening on ports the primary shares (node:cluster). The primary serves the metrics port;
 * each worker answers the primary's metrics requests with its own registry (prom-client's cluster aggregation).
 *
 * Stopping: SIGTERM — from the primary, or sent to this process alone (the primary then starts another) — drains
 * as a single server does (src/server/drain.ts) and exits 0; a second SIGTERM changes nothing (a process manager
 * may signal the whole group as well as the primary). SIGINT is ignored: Ctrl-C on a terminal reaches every
 * process of the group, and only the primary decides; its second signal ends everything at once (it SIGKILLs
 * the workers).
 */
export async function runWorker(config: Config, logs: LogDestination, logFinishMs: number): Promise<void> {
  const slot = Number(process.env[WORKER_SLOT_VARIABLE] ?? 0);
  // The primary is gone (it died, or was SIGKILLed): node exits this worker at once; its log must not hold the
  // exit on a reader that stopped reading (pino's exit-time flush would retry for ever).
  process.prependListener("disconnect", () => logs.abandon());
  process.on("SIGINT", () => undefined);

  let server: RunningServer | undefined;
  let stopRequested = false;
  let stopping: Promise<void> | undefined;
  const exit = async (code: number) => {
    await logs.finish(logFinishMs);
    process.exit(code);
  };
  const stop = () => {
    stopRequested = true;
    if (!server || stopping) return;
    server.app.log.info("finishing requests in flight, then stopping");
    stopping = server.close().then(
      () => exit(0),
      (error: unknown) => {
        process.stderr.write(`strongroom: worker ${slot} while stopping: ${(error as Error).message}\n`);
        return exit(1);
      },
    );
  };
  process.on("SIGTERM", stop);

  try {
    // The primary serves the metrics port, for every worker.
    server = await startServer({ ...config, metricsPort: undefined }, undefined, logs.stream, {
      worker: slot,
      othersStopListening: stoppedListening(),
    });
  } catch (error) {
    await tell({ strongroom: "failed", message: (error as Error).message });
    await exit(1);
    return;
  }
  new AggregatorRegistry(); // answers the primary's metrics requests (prom-client adds the listener once)
  if (config.metricsPort !== undefined) server.services.metrics.includeProcessMetrics();
  AggregatorRegistry.setRegistries([server.services.metrics.registry]);
  await tell({
    strongroom: "ready",
    urls: { url: server.url, ...(server.authProxyUrl ? { authProxyUrl: server.authProxyUrl } : {}) },
    signerPublicKeyHex: server.services.signer.publicKeyHex,
  });
  if (stopRequested) stop();
}
