import { Turnkey } from "@turnkey/sdk-server";
import { describe, expect, it } from "vitest";
import { startDevServer, type DevServer } from "../../src/dev/start-dev-server.js";

const client = (server: DevServer) =>
  new Turnkey({
    apiBaseUrl: server.baseUrl,
    apiPublicKey: server.apiPublicKey,
    apiPrivateKey: server.apiPrivateKey,
    defaultOrganizationId: server.organizationId,
    activityPoller: { intervalMs: 10, numRetries: 2 },
  }).apiClient();

const transactionId = async (server: DevServer) =>
  Number((await server.services.db.query<{ id: string }>("SELECT txid_current()::text AS id"))[0]!.id);

/**
 * Test after test, `startStrongroom()` after `close()`: the second in-memory server of a process takes the first one's
 * engine (src/store/pglite-spare-engine.ts), and holds nothing of the first server — its organization, users, wallets,
 * keys, audit log — only what a new server holds.
 */
describe("in-memory servers started one after another in a process", () => {
  it("each holds only its own organization, wallets and audit log, through the SDK", async () => {
    const first = await startDevServer({ authProxyPort: 0 });
    let firstTransaction: number;
    try {
      const sdk = client(first);
      await sdk.createWallet({ walletName: "first's wallet", accounts: [] });
      await sdk.createUserTag({ userTagName: "first's tag", userIds: [] });
      firstTransaction = await transactionId(first);
    } finally {
      await first.close();
    }

    const second = await startDevServer({ authProxyPort: 0 });
    try {
      expect(await transactionId(second)).toBeGreaterThan(firstTransaction); // the first server's engine, reused
      expect(second.organizationId).not.toBe(first.organizationId);
      const sdk = client(second);
      expect((await sdk.getWhoami({})).organizationId).toBe(second.organizationId);
      expect((await sdk.getWallets({})).wallets).toEqual([]);
      expect((await sdk.listUserTags({})).userTags).toEqual([]);
      const organizations = await second.services.db.query<{ id: string }>("SELECT id FROM organizations");
      expect(organizations.map((row) => row.id)).toEqual([second.organizationId]);
      // The audit log holds the second server's events only, from index 0 on.
      const firstOrganization = `%${first.organizationId}%`;
      const namingFirst = await second.services.db.query(
        "SELECT idx FROM audit_entries WHERE entry LIKE $1 UNION ALL SELECT seq FROM audit_pending WHERE event LIKE $1",
        [firstOrganization],
      );
      expect(namingFirst).toEqual([]);
      const [log] = await second.services.db.query<{ size: string; entries: string; last: string | null }>(
        "SELECT (SELECT size FROM audit_log_state)::text AS size, count(*)::text AS entries, max(idx)::text AS last FROM audit_entries",
      );
      expect(log!.entries).toBe(log!.size);
      if (log!.last !== null) expect(Number(log!.last)).toBe(Number(log!.size) - 1);
      // The first server's API key is unknown here.
      const stale = new Turnkey({
        apiBaseUrl: second.baseUrl,
        apiPublicKey: first.apiPublicKey,
        apiPrivateKey: first.apiPrivateKey,
        defaultOrganizationId: second.organizationId,
      }).apiClient();
      await expect(stale.getWhoami({})).rejects.toThrow();
    } finally {
      await second.close();
    }
  });
});
