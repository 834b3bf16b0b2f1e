import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import pino, { type DestinationStream } from "pino";
import { logDestination } from "../http/log-destination.js";
import type { Config } from "../config.js";
import { openServices } from "../open-services.js";
import type { Services } from "../services.js";
import { startBlockWatcher } from "../domains/transactions/block-watcher.js";
import { startDeliveryWorker } from "../domains/webhooks/worker.js";
import { startBroadcaster } from "../domains/transactions/broadcaster.js";
import { integrationSettings, startIntegrator } from "../audit/integrator.js";
import { noteRecordingSetting } from "../audit/recording-setting.js";
import { periodicSweep } from "../rate-limits/sweep.js";
import { buildAuthProxyApp } from "../auth-proxy/server.js";
import { buildApp } from "./app.js";
import { DEFAULT_DRAIN_MS, drainOnClose } from "./drain.js";
import { serveControlSocket } from "./control-socket.js";
import { startCustodyWorker } from "./custody-worker.js";
import { serveMetrics, type MetricsServer } from "./serve-metrics.js";
import { logShutdown, logStartup } from "./startup-log.js";

export interface RunningServer {
  app: FastifyInstance;
  services: Services;
  url: string;
  /** The auth proxy's base URL (AUTH_PROXY_PORT), what @turnkey/core takes as authProxyUrl; absent when it is off. */
  authProxyUrl?: string;
  /** http://host:port/metrics when METRICS_PORT is set. */
  metricsUrl?: string;
  /**
   * Stops accepting connections, answers the requests read and those arriving on open connections (each
   * answer closing its connection), closes connections as they fall idle (at most `drainMs`, then cuts what is
   * left: drain.ts), stops the workers and closes the store (its lock released).
   */
  close(): Promise<void>;
}

export interface StartOptions {
  /** Routes added to the API app before it listens (the dev server's controls). */
  extend?: (app: FastifyInstance, services: Services) => void | Promise<void>;
  /**
   * Work on the opened services before the server listens, so that /health answers only once it is done (serve's first
   * start: the root organization and its credentials file).
   */
  beforeListen?: (services: Services) => Promise<void>;
  /** Substitutes for parts of the services once opened (the dev server's inbox instead of refusing to send). */
  adjustServices?: (services: Services) => void;
  /** How long close() waits for requests in flight (default 10 s). */
  drainMs?: number;
  /**
   * This process is worker `n` of `serve --workers` (src/server/cluster/): its log lines carry `worker: n`, and the
   * primary writes the start-up and shutdown lines for all of them.
   */
  worker?: number;
  /** A worker: resolves once every worker has closed its listeners, as its drain waits for (src/server/drain.ts). */
  othersStopListening?: () => Promise<void>;
}

/** The flag (and variable) that sets a port, for the message when it is taken. */
function portInUse(error: unknown, host: string, port: number, flag: string): Error {
  if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE") return error as Error;
  return new Error(`${host}:${port} is already in use: choose another port with ${flag}`);
}

interface Workers {
  stop(): Promise<void>;
}

/**
 * How long a background loop with no work at all, not even work due later, sleeps unless woken, on the embedded
 * store. Its one writer is this process, and whatever it commits that makes work for a loop wakes that loop (a
 * webhook delivery, an audit event, a seal request, a rotation through the control socket), so polling finds
 * nothing the wakes miss. An idle embedded server then runs no statement for a minute at a time, and its engine
 * keeps the memory that running them would cost (bench/README.md, "Idle memory"). On PostgreSQL other processes
 * write: the loops keep their polls.
 */
const EMBEDDED_IDLE_INTERVAL_MS = 60_000;

const idleIntervalMs = (services: Services) => (services.store.kind === "pglite" ? EMBEDDED_IDLE_INTERVAL_MS : undefined);

/**
 * The workers that need the server's keys: the webhook delivery worker (whose loop also prunes budget events no
 * window counts any more), the audit log's integrator, the transaction broadcaster and the block watcher. While the
 * database is unavailable they fail each round: one line saying so, not a stack each time.
 */
function startWorkers(services: Services, config: Config, log: FastifyBaseLogger): Workers {
  const workerFailed = (what: string) => (error: unknown) =>
    error instanceof Error && error.name === "DatabaseUnavailable"
      ? log.warn(`${what}: ${error.message}`)
      : log.error({ err: error }, what);
  const worker = startDeliveryWorker(services, workerFailed("webhook delivery worker"), {
    housekeeping: [periodicSweep(services)],
    idleIntervalMs: idleIntervalMs(services),
  });
  services.webhooks.wake = worker.wake;
  // Every process runs the audit log's integrator; the one holding its lease integrates for the cluster.
  const integrator = startIntegrator(
    services.db,
    services.audit.keys,
    { ...integrationSettings(services.audit.settings), idleIntervalMs: idleIntervalMs(services) },
    { budget: services.audit.refusals, clock: services.clock },
    workerFailed("audit log integrator"),
  );
  services.audit.wake = integrator.wake;
  // Every process sends and tracks queued transactions (claimed with SKIP LOCKED), whenever a chain is configured.
  const broadcaster = services.chains.anyConfigured
    ? startBroadcaster(services, (error) => log.error({ err: error }, "transaction broadcaster"))
    : undefined;
  if (broadcaster) services.broadcaster.wake = broadcaster.wake;
  const watcher = services.chains.anyEvmConfigured
    ? startBlockWatcher(services, config.evm, (error) => log.warn({ err: error }, "block watcher"))
    : undefined;
  return {
    async stop() {
      services.webhooks.wake = () => undefined;
      services.audit.wake = () => undefined;
      services.broadcaster.wake = () => undefined;
      await watcher?.stop();
      await broadcaster?.stop();
      await worker.stop();
      await integrator.stop();
    },
  };
}

/** Opens storage and keys, then serves HTTP until closed. */
export async function startServer(
  config: Config,
  clock?: () => Date,
  logStream?: DestinationStream,
  options: StartOptions = {},
): Promise<RunningServer> {
  // Before the app (and its logger) exists, waiting for the database is logged on the same stream.
  const logBindings = options.worker === undefined ? undefined : { worker: options.worker };
  const startLog = pino(
    { level: config.logLevel },
    logDestination(logStream ?? pino.destination({ fd: 1, sync: true }), config.logFormat),
  ).child(logBindings ?? {});
  const services = await openServices(config, clock, (message) => startLog.warn(message));
  options.adjustServices?.(services);
  await noteRecordingSetting(services.db, services.audit.settings.recording, services.clock()).catch(async (error: unknown) => {
    await services.db.close();
    throw error;
  });
  const appOptions = {
    logLevel: config.logLevel,
    logFormat: config.logFormat,
    bodyLimitBytes: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    errorMessages: config.errorMessages,
    frameAncestors: config.frameAncestors,
    ...(logStream ? { logStream } : {}),
    ...(logBindings ? { logBindings } : {}),
  };
  const app = await buildApp(services, appOptions);
  const appDraining = drainOnClose(app);
  await options.extend?.(app, services);
  const proxy = config.authProxyPort === undefined ? undefined : await buildAuthProxyApp(services, appOptions);
  const proxyDraining = proxy ? drainOnClose(proxy) : undefined;
  let metricsServer: MetricsServer | undefined;
  try {
    await options.beforeListen?.(services);
    await app.listen({ host: config.host, port: config.port }).catch((error: unknown) => {
      throw portInUse(error, config.host, config.port, "--port (PORT)");
    });
    if (proxy && config.authProxyPort !== undefined) {
      const port = config.authProxyPort;
      await proxy.listen({ host: config.host, port }).catch((error: unknown) => {
        throw portInUse(
          error,
          config.host,
          port,
          "--auth-proxy-port (AUTH_PROXY_PORT), or turn the auth proxy off with --auth-proxy-port off",
        );
      });
    }
    if (config.metricsPort !== undefined) {
      services.metrics.includeProcessMetrics();
      metricsServer = await serveMetrics(services.metrics.registry, config.host, config.metricsPort);
    }
  } catch (error) {
    await proxy?.close();
    await app.close();
    await services.custody.seal();
    await services.db.close();
    throw error;
  }
  // The workers need the server's keys: they run while the process is unsealed, and stop when it seals.
  let workers: Workers | undefined;
  const startAllWorkers = () => {
    workers ??= startWorkers(services, config, app.log);
  };
  const stopAllWorkers = async () => {
    const running = workers;
    workers = undefined;
    await running?.stop();
  };
  if (!services.custody.sealed) startAllWorkers();
  let closing = false;
  services.custody.onChange((sealed) => {
    if (closing) return;
    if (!sealed) return startAllWorkers();
    app.log.warn("sealed: every key was dropped from memory; the API answers 503 until the process is unsealed");
    void stopAllWorkers();
  });
  const custodyWorker = startCustodyWorker(services, config.seal.pollMs, app.log, idleIntervalMs(services));
  services.custodyWorker.wake = custodyWorker.wake;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  const urlOf = (server: FastifyInstance, fallback: number) => {
    const address = server.server.address();
    return `http://${host}:${typeof address === "object" && address ? address.port : fallback}`;
  };
  services.oauth.issuer ||= urlOf(app, config.port);
  // Embedded store in a data directory: `strongroom backup` asks this server for a snapshot while it runs.
  const control = await serveControlSocket(services, config.dataDir, app.log, {
    keyringPollMs: config.seal.pollMs,
    rotated: () => custodyWorker.wake(),
  });
  const urls = {
    url: urlOf(app, config.port),
    ...(proxy && config.authProxyPort !== undefined ? { authProxyUrl: urlOf(proxy, config.authProxyPort) } : {}),
    ...(metricsServer ? { metricsUrl: metricsServer.url } : {}),
  };
  if (options.worker === undefined)
    logStartup(
      app.log,
      { store: services.store, signerPublicKeyHex: services.custody.sealed ? undefined : services.signer.publicKeyHex },
      urls,
    );
  const startedAt = Date.now();
  const drainMs = options.drainMs ?? DEFAULT_DRAIN_MS;
  let closed: Promise<void> | undefined;
  return {
    app,
    services,
    ...urls,
    close() {
      closed ??= (async () => {
        const othersStopListening = options.othersStopListening;
        await Promise.all([
          appDraining.drainAndClose(drainMs, othersStopListening),
          proxyDraining?.drainAndClose(drainMs, othersStopListening),
        ]);
        await metricsServer?.close();
        closing = true;
        await custodyWorker.stop();
        await stopAllWorkers();
        await control?.close();
        // The keys leave memory.
        await services.custody.seal();
        await services.db.close();
        if (options.worker === undefined) logShutdown(app.log, services.store.kind, Date.now() - startedAt);
      })();
      return closed;
    },
  };
}
