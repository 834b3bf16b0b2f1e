import type { FastifyInstance } from "fastify";
import type { Config } from "../config.js";
import { openServices } from "../open-services.js";
import type { Services } from "../services.js";
import { startBalanceWatcher } from "../domains/webhooks/balances.js";
import { startDeliveryWorker } from "../domains/webhooks/worker.js";
import { buildAuthProxyApp } from "../authproxy/server.js";
import { buildApp } from "./app.js";

export interface RunningServer {
  app: FastifyInstance;
  services: Services;
  url: string;
  /** The auth proxy's base URL (AUTH_PROXY_PORT), what @turnkey/core takes as authProxyUrl. */
  authProxyUrl: string;
  close(): Promise<void>;
}

/** Opens storage and keys, then serves HTTP until closed. */
export async function startServer(config: Config, clock?: () => Date, logStream?: NodeJS.WritableStream): Promise<RunningServer> {
  const services = await openServices(config, clock);
  const app = await buildApp(services, {
    logLevel: config.logLevel,
    bodyLimitBytes: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    ...(logStream ? { logStream } : {}),
  });
  const proxy = await buildAuthProxyApp(services, {
    logLevel: config.logLevel,
    bodyLimitBytes: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    ...(logStream ? { logStream } : {}),
  });
  try {
    await app.listen({ host: config.host, port: config.port });
    await proxy.listen({ host: config.host, port: config.authProxyPort });
  } catch (error) {
    await app.close();
    await services.db.close();
    throw error;
  }
  const worker = startDeliveryWorker(services, (error) => app.log.error({ err: error }, "webhook delivery worker"));
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
  return {
    app,
    services,
    url: urlOf(app, config.port),
    authProxyUrl: urlOf(proxy, config.authProxyPort),
    async close() {
      await proxy.close();
      await app.close();
      await watcher?.stop();
      await worker.stop();
      await services.db.close();
    },
  };
}
