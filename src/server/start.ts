import type { FastifyInstance } from "fastify";
import type { Config } from "../config.js";
import { openServices } from "../runtime.js";
import type { Services } from "../services.js";
import { startBalanceWatcher } from "../webhooks/balances.js";
import { startDeliveryWorker } from "../webhooks/worker.js";
import { buildApp } from "./app.js";

export interface RunningServer {
  app: FastifyInstance;
  services: Services;
  url: string;
  close(): Promise<void>;
}

/** Opens storage and keys, then serves HTTP until closed. */
export async function startServer(config: Config, clock?: () => Date, logStream?: NodeJS.WritableStream): Promise<RunningServer> {
  const services = await openServices(config, clock);
  const app = await buildApp(services, { logLevel: config.logLevel, bodyLimitBytes: config.bodyLimitBytes, trustProxy: config.trustProxy, ...(logStream ? { logStream } : {}) });
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await services.db.close();
    throw error;
  }
  const worker = startDeliveryWorker(services, (error) => app.log.error({ err: error }, "webhook delivery worker"));
  services.webhooks.wake = worker.wake;
  const watcher = config.evm.rpcUrl ? startBalanceWatcher(services, config.evm, (error) => app.log.warn({ err: error }, "balance watcher")) : undefined;
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  services.oauth.issuer ||= `http://${host}:${port}`;
  return {
    app,
    services,
    url: `http://${host}:${port}`,
    async close() {
      await app.close();
      await watcher?.stop();
      await worker.stop();
      await services.db.close();
    },
  };
}
