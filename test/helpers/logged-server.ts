import { Turnkey } from "@turnkey/sdk-server";
import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { resolveConfig } from "../../src/config.js";
import { openServices } from "../../src/open-services.js";
import { buildApp } from "../../src/server/app.js";
import { initRootOrganization } from "../../src/domains/organizations/init-root-organization.js";
import type { Services } from "../../src/services.js";

/** An in-memory server whose log lines are collected, for tests that read the logs. */
export async function startLoggedServer(env: Record<string, string> = {}) {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const services = await openServices(
    resolveConfig({ dataDir: "memory://" }, { STRONGROOM_MASTER_KEY: randomBytes(32).toString("hex"), ...env }),
  );
  const app = await buildApp(services, { logLevel: "debug", logStream: stream });
  await app.listen({ host: "127.0.0.1", port: 0 });
  return {
    services,
    url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`,
    log: () => lines.join(""),
    async close() {
      await app.close();
      await services.db.close();
    },
  };
}

/** Creates the root organization on a server without one; returns its root user and an sdk-server client acting as them. */
export async function initRootWithClient(server: { services: Services; url: string }) {
  const root = await initRootOrganization(server.services);
  const client = new Turnkey({
    apiBaseUrl: server.url,
    apiPublicKey: root.apiPublicKey,
    apiPrivateKey: root.apiPrivateKey!,
    defaultOrganizationId: root.organizationId,
  }).apiClient();
  return { root, client };
}
