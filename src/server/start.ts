import type { FastifyInstance } from "fastify";
import type { Config } from "../config.js";
import { ApiError, GrpcCode } from "../errors.js";
import { openServices } from "../open-services.js";
import type { Services } from "../services.js";
import { startBalanceWatcher } from "../domains/webhooks/balances.js";
import { startDeliveryWorker } from "../domains/webhooks/worker.js";
import { periodicSweep } from "../rate-limits/sweep.js";
import { buildAuthProxyApp } from "../auth-proxy/server.js";
import { buildApp } from "./app.js";
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
   * Stops taking requests (late ones get a 503 UNAVAILABLE in the API's error shape), waits for those in
   * flight (at most `drainMs`), closes the ports, stops the workers and closes the store (its lock released).
   */
  close(): Promise<void>;
}

export interface StartOptions {
  /** Routes added to the API app before it listens (the dev server's controls). */
  extend?: (app: FastifyInstance, services: Services) => void | Promise<void>;
  /** Substitutes for parts of the services once opened (the dev server's inbox instead of refusing to send). */
  adjustServices?: (services: Services) => void;
  /** How long close() waits for requests in flight (default 10 s). */
  drainMs?: number;
}

const DEFAULT_DRAIN_MS = 10_000;

/** The flag (and variable) that sets a port, for the message when it is taken. */
function portInUse(error: unknown, host: string, port: number, flag: string): Error {
  if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE") return error as Error;
  return new Error(`${host}:${port} is already in use: choose another port with ${flag}`);
}

/**
 * Counts the requests in flight, and answers every request that arrives once stopping began with 503
 * UNAVAILABLE in the API's error shape (closing its connection): while requests drain, the port stays
 * open, so late callers get an answer they can act on rather than a refused connection.
 */
function trackRequests(app: FastifyInstance, stopping: () => boolean): { inFlight: () => number } {
  let inFlight = 0;
  app.addHook("onRequest", async (request, reply) => {
    if (stopping()) {
      const error = new ApiError(GrpcCode.UNAVAILABLE, "the server is shutting down; retry against a running instance", undefined, [], 503);
      return reply.status(503).header("connection", "close").send(error.toBody());
    }
    inFlight++;
    reply.raw.once("close", () => inFlight--);
    request.raw.once("error", () => undefined);
  });
  return { inFlight: () => inFlight };
}

/** Waits for the requests in flight (at most `drainMs`), then closes, cutting what is left. */
async function drainAndClose(app: FastifyInstance, inFlight: () => number, drainMs: number): Promise<void> {
  const deadline = Date.now() + drainMs;
  while (inFlight() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  app.server.closeAllConnections();
  await app.close();
}

/** Opens storage and keys, then serves HTTP until closed. */
export async function startServer(
  config: Config,
  clock?: () => Date,
  logStream?: NodeJS.WritableStream,
  options: StartOptions = {},
): Promise<RunningServer> {
  const services = await openServices(config, clock);
  options.adjustServices?.(services);
  let stopping = false;
  const appOptions = {
    logLevel: config.logLevel,
    logFormat: config.logFormat,
    bodyLimitBytes: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    errorMessages: config.errorMessages,
    frameAncestors: config.frameAncestors,
    ...(logStream ? { logStream } : {}),
  };
  const app = await buildApp(services, appOptions);
  const appRequests = trackRequests(app, () => stopping);
  await options.extend?.(app, services);
  const proxy = config.authProxyPort === undefined ? undefined : await buildAuthProxyApp(services, appOptions);
  const proxyRequests = proxy ? trackRequests(proxy, () => stopping) : undefined;
  let metricsServer: MetricsServer | undefined;
  try {
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
    if (config.metricsPort !== undefined) metricsServer = await serveMetrics(services.metrics, config.host, config.metricsPort);
  } catch (error) {
    await proxy?.close();
    await app.close();
    await services.db.close();
    throw error;
  }
  // The delivery worker's loop also prunes budget events no window counts any more.
  const worker = startDeliveryWorker(services, (error) => app.log.error({ err: error }, "webhook delivery worker"), [
    periodicSweep(services),
  ]);
  services.webhooks.wake = worker.wake;
  const watcher = config.evm.rpcUrl
    ? startBalanceWatcher(services, config.evm, (error) => app.log.warn({ err: error }, "balance watcher"))
    : undefined;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  const urlOf = (server: FastifyInstance, fallback: number) => {
    const address = server.server.address();
    return `http://${host}:${typeof address === "object" && address ? address.port : fallback}`;
  };
  services.oauth.issuer ||= urlOf(app, config.port);
  const urls = {
    url: urlOf(app, config.port),
    ...(proxy && config.authProxyPort !== undefined ? { authProxyUrl: urlOf(proxy, config.authProxyPort) } : {}),
    ...(metricsServer ? { metricsUrl: metricsServer.url } : {}),
  };
  logStartup(app.log, services, urls);
  const startedAt = Date.now();
  const drainMs = options.drainMs ?? DEFAULT_DRAIN_MS;
  let closed: Promise<void> | undefined;
  return {
    app,
    services,
    ...urls,
    close() {
      closed ??= (async () => {
        stopping = true;
        await Promise.all([
          drainAndClose(app, appRequests.inFlight, drainMs),
          proxy && proxyRequests ? drainAndClose(proxy, proxyRequests.inFlight, drainMs) : undefined,
        ]);
        await metricsServer?.close();
        await watcher?.stop();
        await worker.stop();
        await services.db.close();
        logShutdown(app.log, services, Date.now() - startedAt);
      })();
      return closed;
    },
  };
}
