import { generateP256KeyPair } from "@turnkey/crypto";
import { Turnkey } from "@turnkey/sdk-server";
import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { initRootOrganization } from "../../src/bootstrap.js";
import { openServices } from "../../src/runtime.js";
import { resolveConfig } from "../../src/config.js";
import { buildApp } from "../../src/server/app.js";

describe("logs", () => {
  it("carry requests but no stamp, key material or private key", async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const services = await openServices(resolveConfig({ dataDir: "memory://" }, { STRONGROOM_MASTER_KEY: randomBytes(32).toString("hex") }));
    const app = await buildApp(services, { logLevel: "info", logStream: stream });
    await app.listen({ host: "127.0.0.1", port: 0 });
    try {
      const root = await initRootOrganization(services);
      const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
      const client = new Turnkey({ apiBaseUrl: url, apiPublicKey: root.apiPublicKey, apiPrivateKey: root.apiPrivateKey!, defaultOrganizationId: root.organizationId }).apiClient();
      const extra = generateP256KeyPair();
      await client.createApiKeys({ userId: root.userId, apiKeys: [{ apiKeyName: "x", publicKey: extra.publicKey, curveType: "API_KEY_CURVE_P256" }] });
      await client.getWhoami({});
      await client.getApiKey({ apiKeyId: "missing" }).catch(() => undefined);
      const log = lines.join("");
      expect(log).toContain("/public/v1/query/whoami");
      expect(log).not.toContain(root.apiPrivateKey!);
      expect(log.toLowerCase()).not.toContain("x-stamp");
      expect(log).not.toContain(Buffer.from(services.signer.secret).toString("hex"));
    } finally {
      await app.close();
      await services.db.close();
    }
  });
});
