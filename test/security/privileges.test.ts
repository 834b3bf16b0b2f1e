import { generateP256KeyPair } from "@turnkey/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refusal } from "../helpers/refusal.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

type Key = { publicKey: string; privateKey: string };
const ETH = { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" } as const;
const apiUser = (name: string, publicKey: string) => ({ userName: name, apiKeys: [{ apiKeyName: name, publicKey, curveType: "API_KEY_CURVE_P256" as const }], authenticators: [], oauthProviders: [] });
const credentials = (key: Key) => ({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey });

describe("root-quorum-only activities", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  it("refuses delete_sub_organization to a non-root user whom a policy allows every DELETE (403), keeping the organization and its never-exported wallet", async () => {
    const alice = generateP256KeyPair();
    const { subOrganizationId } = await server.client().createSubOrganization({ subOrganizationName: "victim", rootQuorumThreshold: 1, rootUsers: [apiUser("alice", alice.publicKey)] });
    const asAlice = server.client(credentials(alice), subOrganizationId);
    const mallory = generateP256KeyPair();
    const { userIds } = await asAlice.createUsers({ users: [{ ...apiUser("mallory", mallory.publicKey), userTags: [] }] });
    await asAlice.createPolicy({ policyName: "mallory deletes", effect: "EFFECT_ALLOW", condition: "activity.action == 'DELETE'", consensus: `approvers.any(user, user.id == '${userIds[0]}')`, notes: "" });
    const { walletId } = await asAlice.createWallet({ walletName: "never exported", accounts: [ETH] });

    const asMallory = server.client(credentials(mallory), subOrganizationId);
    const refused = await refusal(asMallory.deleteSubOrganization({ deleteWithoutExport: true }));
    expect(refused.code).toBe(7);
    expect(refused.message).toContain("root quorum");
    expect((await asAlice.getWallet({ walletId })).wallet.walletId).toBe(walletId);
    expect((await server.client().getSubOrgIds({})).organizationIds).toContain(subOrganizationId);

    // The same policy still lets mallory delete what it is meant for; the root user may still delete the organization.
    expect((await asMallory.deleteWallets({ walletIds: [walletId], deleteWithoutExport: true })).walletIds).toEqual([walletId]);
    expect((await asAlice.deleteSubOrganization({ deleteWithoutExport: true })).subOrganizationUuid).toBe(subOrganizationId);
  });

  it("waits for the rest of the root quorum when one of two root users asks to delete the sub-organization", async () => {
    const [a, b] = [generateP256KeyPair(), generateP256KeyPair()];
    const { subOrganizationId } = await server.client().createSubOrganization({ subOrganizationName: "two roots", rootQuorumThreshold: 2, rootUsers: [apiUser("a", a.publicKey), apiUser("b", b.publicKey)] });
    const pending = await server.client(credentials(a), subOrganizationId).deleteSubOrganization({ deleteWithoutExport: true });
    expect(pending.activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    expect((await server.client().getSubOrgIds({})).organizationIds).toContain(subOrganizationId);
  });
});
