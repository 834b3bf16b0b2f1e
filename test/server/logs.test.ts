import { generateP256KeyPair } from "@turnkey/crypto";
import { Turnkey } from "@turnkey/sdk-server";
import { describe, expect, it } from "vitest";
import { initRootOrganization } from "../../src/domains/organizations/init-root-organization.js";
import { startLoggedServer } from "../helpers/logged-server.js";

describe("logs", () => {
  it("carry requests but no stamp, key material or private key", async () => {
    const server = await startLoggedServer();
    try {
      const root = await initRootOrganization(server.services);
      const client = new Turnkey({
        apiBaseUrl: server.url,
        apiPublicKey: root.apiPublicKey,
        apiPrivateKey: root.apiPrivateKey!,
        defaultOrganizationId: root.organizationId,
      }).apiClient();
      const extra = generateP256KeyPair();
      await client.createApiKeys({
        userId: root.userId,
        apiKeys: [{ apiKeyName: "x", publicKey: extra.publicKey, curveType: "API_KEY_CURVE_P256" }],
      });
      await client.getWhoami({});
      await client.getApiKey({ apiKeyId: "missing" }).catch(() => undefined);
      const log = server.log();
      expect(log).toContain("/public/v1/query/whoami");
      expect(log).not.toContain(root.apiPrivateKey!);
      expect(log.toLowerCase()).not.toContain("x-stamp");
      expect(log).not.toContain(Buffer.from(server.services.signer.secret).toString("hex"));
    } finally {
      await server.close();
    }
  });
});
