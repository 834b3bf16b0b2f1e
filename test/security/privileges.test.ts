import { p256 } from "@noble/curves/nist.js";
import { decryptCredentialBundle, generateP256KeyPair } from "@turnkey/crypto";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMailReceiver } from "../helpers/mail-receiver.js";
import { refusal } from "../helpers/refusal.js";
import { activityBody, p256Stamp, post } from "../helpers/requests.js";
import { rowCounts } from "../helpers/row-counts.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { SoftwareAuthenticator } from "../helpers/software-authenticator.js";
import { ETHEREUM_ACCOUNT } from "../helpers/wallet-accounts.js";
import { userWithApiKey, credentialsOf } from "../helpers/users.js";

type Key = { publicKey: string; privateKey: string };

describe("root-quorum-only activities", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  it("refuses delete_sub_organization to a non-root user whom a policy allows every DELETE (403), keeping the organization and its never-exported wallet", async () => {
    const alice = generateP256KeyPair();
    const { subOrganizationId } = await server.client().createSubOrganization({
      subOrganizationName: "victim",
      rootQuorumThreshold: 1,
      rootUsers: [userWithApiKey("alice", alice.publicKey)],
    });
    const asAlice = server.client(credentialsOf(alice), subOrganizationId);
    const mallory = generateP256KeyPair();
    const { userIds } = await asAlice.createUsers({ users: [{ ...userWithApiKey("mallory", mallory.publicKey), userTags: [] }] });
    await asAlice.createPolicy({
      policyName: "mallory deletes",
      effect: "EFFECT_ALLOW",
      condition: "activity.action == 'DELETE'",
      consensus: `approvers.any(user, user.id == '${userIds[0]}')`,
      notes: "",
    });
    const { walletId } = await asAlice.createWallet({ walletName: "never exported", accounts: [ETHEREUM_ACCOUNT] });

    const asMallory = server.client(credentialsOf(mallory), subOrganizationId);
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
    const { subOrganizationId } = await server.client().createSubOrganization({
      subOrganizationName: "two roots",
      rootQuorumThreshold: 2,
      rootUsers: [userWithApiKey("a", a.publicKey), userWithApiKey("b", b.publicKey)],
    });
    const pending = await server.client(credentialsOf(a), subOrganizationId).deleteSubOrganization({ deleteWithoutExport: true });
    expect(pending.activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    expect((await server.client().getSubOrgIds({})).organizationIds).toContain(subOrganizationId);
  });
});

describe("the email recovery credential (CREDENTIAL_TYPE_RECOVER_USER_KEY_P256)", () => {
  let server: TestServer;
  let mail: Awaited<ReturnType<typeof startMailReceiver>>;
  let subOrganizationId: string;
  let carolId: string;
  let recovery: Key;
  beforeAll(async () => {
    mail = await startMailReceiver();
    server = await startTestServer({ env: { SMTP_URL: mail.url } });
    const created = await server.client().createSubOrganization({
      subOrganizationName: "Carol's",
      rootQuorumThreshold: 1,
      rootUsers: [{ userName: "carol", userEmail: "carol@example.com", apiKeys: [], authenticators: [], oauthProviders: [] }],
      wallet: { walletName: "savings", accounts: [ETHEREUM_ACCOUNT] },
    });
    subOrganizationId = created.subOrganizationId;
    carolId = created.rootUserIds![0]!;
    const target = generateP256KeyPair();
    const started = await server.client().initUserEmailRecovery({
      organizationId: subOrganizationId,
      email: "carol@example.com",
      targetPublicKey: target.publicKeyUncompressed,
      emailCustomization: { appName: "Acme" },
    });
    expect(started.activity.status, JSON.stringify(started.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    const bundle = /to recover your Acme account:\n(\S+)/.exec((await mail.next("carol@example.com")).parsed.text ?? "")![1]!;
    const privateKey = decryptCredentialBundle(bundle, target.privateKey);
    recovery = { privateKey, publicKey: Buffer.from(p256.getPublicKey(Buffer.from(privateKey, "hex"), true)).toString("hex") };
  });
  afterAll(async () => {
    await server.close();
    await mail.close();
  });

  it("is refused (403 naming the credential type) for every activity but recover_user and every query but whoami, changing nothing", async () => {
    const send = (path: string, body: string) =>
      post(`${server.url}${path}`, body, { "X-Stamp": p256Stamp(body, recovery.publicKey, recovery.privateKey) });
    const before = await rowCounts(server.services.db);
    const activities: Array<[string, string, unknown]> = [
      [
        "create_api_keys",
        "ACTIVITY_TYPE_CREATE_API_KEYS_V2",
        {
          userId: carolId,
          apiKeys: [{ apiKeyName: "backdoor", publicKey: generateP256KeyPair().publicKey, curveType: "API_KEY_CURVE_P256" }],
        },
      ],
      [
        "create_read_write_session",
        "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
        { targetPublicKey: generateP256KeyPair().publicKeyUncompressed },
      ],
      ["stamp_login", "ACTIVITY_TYPE_STAMP_LOGIN", { publicKey: generateP256KeyPair().publicKey }],
      ["create_wallet", "ACTIVITY_TYPE_CREATE_WALLET", { walletName: "mine", accounts: [ETHEREUM_ACCOUNT] }],
      ["update_user_email", "ACTIVITY_TYPE_UPDATE_USER_EMAIL", { userId: carolId, userEmail: "mallory@example.com" }],
      ["approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", { fingerprint: `sha256:${"00".repeat(32)}` }],
    ];
    for (const [operation, type, parameters] of activities) {
      const { status, json } = await send(`/public/v1/submit/${operation}`, activityBody(type, subOrganizationId, parameters));
      expect(status, `${operation}: ${JSON.stringify(json)}`).toBe(403);
      expect(json, operation).toMatchObject({ code: 7, message: expect.stringContaining("CREDENTIAL_TYPE_RECOVER_USER_KEY_P256") });
    }
    for (const [operation, body] of [
      ["list_wallets", { organizationId: subOrganizationId }],
      ["list_users", { organizationId: subOrganizationId }],
      ["get_api_keys", { organizationId: subOrganizationId, userId: carolId }],
    ] as const) {
      const { status, json } = await send(`/public/v1/query/${operation}`, JSON.stringify(body));
      expect(status, `${operation}: ${JSON.stringify(json)}`).toBe(403);
      expect(json, operation).toMatchObject({ code: 7, message: expect.stringContaining("CREDENTIAL_TYPE_RECOVER_USER_KEY_P256") });
    }
    expect(await rowCounts(server.services.db)).toEqual(before);
  });

  it("may still ask whoami and finish the recovery, after which it is gone", async () => {
    const asRecovery = server.client({ apiPublicKey: recovery.publicKey, apiPrivateKey: recovery.privateKey }, subOrganizationId);
    expect((await asRecovery.getWhoami({})).userId).toBe(carolId);
    const authenticator = new SoftwareAuthenticator();
    const challenge = randomBytes(32).toString("base64url");
    const recovered = await asRecovery.recoverUser({
      userId: carolId,
      authenticator: { authenticatorName: "new phone", challenge, attestation: authenticator.attest(challenge) },
    });
    expect(recovered.activity.status, JSON.stringify(recovered.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    expect((await refusal(asRecovery.getWhoami({}))).code).toBe(16);
  });
});
