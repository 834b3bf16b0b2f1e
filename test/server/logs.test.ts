import { generateP256KeyPair } from "@turnkey/crypto";
import { describe, expect, it } from "vitest";
import { initRootWithClient, startLoggedServer } from "../helpers/logged-server.js";

describe("logs", () => {
  it("carry requests but no stamp, key material or private key", async () => {
    const server = await startLoggedServer();
    try {
      const { root, client } = await initRootWithClient(server);
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
