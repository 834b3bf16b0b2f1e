import { describe, expect, it } from "vitest";
import type { Principal } from "../../src/auth/authenticate.js";
import { checkIpAllowlist } from "../../src/auth/ip-allowlist.js";
import { startTestServer } from "../helpers/server.js";

describe("IP allowlist evaluation errors", () => {
  it("deny by default when the client address is unknown, and allow when onEvaluationError says so", async () => {
    const server = await startTestServer();
    try {
      const organization = { id: server.root.organizationId, parent_id: null } as never;
      const principal = { credential: { kind: "api-key", id: "k", type: "", publicKey: server.root.apiPublicKey }, viaParent: false } as unknown as Principal;
      await server.client().setIpAllowlist({ enabled: true, rules: [{ cidr: "127.0.0.1/32" }] });
      await expect(checkIpAllowlist(server.services.db, principal, organization, undefined)).rejects.toThrow(/could not be determined/);
      await expect(checkIpAllowlist(server.services.db, principal, organization, "not an address")).rejects.toThrow(/could not be determined/);
      await expect(checkIpAllowlist(server.services.db, principal, organization, "::ffff:127.0.0.1")).resolves.toBeUndefined();
      await server.client().setIpAllowlist({ enabled: true, rules: [{ cidr: "127.0.0.1/32" }], onEvaluationError: "ALLOW" });
      await expect(checkIpAllowlist(server.services.db, principal, organization, undefined)).resolves.toBeUndefined();
    } finally {
      await server.close();
    }
  });
});
