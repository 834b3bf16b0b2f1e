import { freshPostgresDatabase } from "./postgres-database.js";
import { randomBytes } from "node:crypto";
import { Turnkey } from "@turnkey/sdk-server";
import { initRootOrganization, type InitResult } from "../../src/domains/organizations/init-root-organization.js";
import { resolveConfig } from "../../src/config.js";
import { startServer, type RunningServer } from "../../src/server/start.js";
import { checkResultsOfEveryResponse } from "./result-schemas.js";

/**
 * A real Strongroom on a free loopback port. With DATABASE_URL set, each test server gets a
 * fresh PostgreSQL database of its own (dropped on close); otherwise an in-memory PGlite.
 */
export interface TestServer extends RunningServer {
  /** Test servers always run the auth proxy (on a free port). */
  authProxyUrl: string;
  root: InitResult;
  /** An sdk-server client acting as the root user of the root organization. */
  client(credentials?: { apiPublicKey: string; apiPrivateKey: string }, organizationId?: string): ReturnType<Turnkey["apiClient"]>;
}

export async function startTestServer(
  options: { clock?: () => Date; env?: Record<string, string>; logStream?: NodeJS.WritableStream } = {},
): Promise<TestServer> {
  checkResultsOfEveryResponse();
  const baseUrl = process.env.DATABASE_URL;
  const database = baseUrl ? await freshPostgresDatabase(baseUrl) : undefined;
  const config = resolveConfig(
    { dataDir: "memory://", host: "127.0.0.1", port: 0 },
    {
      DATABASE_URL: database?.url,
      STRONGROOM_MASTER_KEY: randomBytes(32).toString("hex"),
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
      AUTH_PROXY_PORT: "0",
      ...options.env,
    },
  );
  const server = await startServer(config, options.clock, options.logStream);
  const root = await initRootOrganization(server.services, { organizationName: "Test organization", userName: "Root user" });
  return {
    ...server,
    authProxyUrl: server.authProxyUrl!,
    root,
    client(credentials, organizationId) {
      const turnkey = new Turnkey({
        apiBaseUrl: server.url,
        apiPublicKey: credentials?.apiPublicKey ?? root.apiPublicKey,
        apiPrivateKey: credentials?.apiPrivateKey ?? root.apiPrivateKey!,
        defaultOrganizationId: organizationId ?? root.organizationId,
        // Activities waiting for consensus are polled briefly, as the SDK does, but fast.
        activityPoller: { intervalMs: 10, numRetries: 2 },
      });
      return turnkey.apiClient();
    },
    async close() {
      await server.close();
      await database?.drop();
    },
  };
}
