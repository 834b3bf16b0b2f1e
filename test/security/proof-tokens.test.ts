import { encryptOtpCodeToBundle, generateP256KeyPair } from "@turnkey/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimsOf, coreClient, submitAsRoot } from "../helpers/auth-proxy.js";
import { startMailReceiver } from "../helpers/mail-receiver.js";
import { refusal } from "../helpers/refusal.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { startWebhookReceiver } from "../helpers/webhook-receiver.js";

type KeyPair = { publicKey: string; privateKey: string };
type Client = ReturnType<TestServer["client"]>;

const codeIn = (text: string) => /verification code is ([0-9A-Z]+)/.exec(text)?.[1];

/** What became of an activity: its status, or the code it was refused with. */
const outcome = (request: Promise<{ activity: { status: string } }>) =>
  request.then(
    (r) => r.activity.status,
    (e: unknown) => `refused with code ${(e as { code?: number }).code}`,
  );

/**
 * Issue 24, finding 1: a verification token proves a contact once, for the key named at verify_otp, in the
 * organization it was issued for, and nobody but the client that verified the code ever reads it.
 */
describe("verification tokens are proofs for one key, once, in one organization, and never in readable records", () => {
  let server: TestServer;
  let mail: Awaited<ReturnType<typeof startMailReceiver>>;
  let hooks: Awaited<ReturnType<typeof startWebhookReceiver>>;

  beforeAll(async () => {
    mail = await startMailReceiver();
    hooks = await startWebhookReceiver();
    server = await startTestServer({
      env: { SMTP_URL: mail.url, SMTP_FROM: "Acme <no-reply@acme.test>", STRONGROOM_WEBHOOK_ALLOW_PRIVATE: "1" },
    });
    await server
      .client()
      .createWebhookEndpoint({ url: hooks.url, name: "activity log", subscriptions: [{ eventType: "ACTIVITY_UPDATES" }] });
  });
  afterAll(async () => {
    await server.close();
    await mail.close();
    await hooks.close();
  });

  /** A user of the root organization with an email an admin set, and an API key; `as()` is their SDK client. */
  async function addUser(userName: string, userEmail: string) {
    const key = generateP256KeyPair();
    const { userIds } = await server.client().createUsers({
      users: [
        {
          userName,
          userEmail,
          apiKeys: [{ apiKeyName: userName, publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }],
          authenticators: [],
          oauthProviders: [],
          userTags: [],
        },
      ],
    });
    return { userId: userIds[0]!, key, as: () => server.client({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }) };
  }

  /** init_otp then verify_otp through `client`, the code encrypted with `key` as the token's key: the verify_otp answer. */
  async function verifyCode(client: Client, contact: string, key: KeyPair, organizationId?: string) {
    const started = await client.initOtp({
      otpType: "OTP_TYPE_EMAIL",
      contact,
      appName: "Acme",
      ...(organizationId ? { organizationId } : {}),
    });
    const code = codeIn((await mail.next(contact)).parsed.text ?? "")!;
    const encryptedOtpBundle = await encryptOtpCodeToBundle(
      code,
      started.otpEncryptionTargetBundle,
      key.publicKey,
      server.services.signer.publicKeyHex,
    );
    const verified = await client.verifyOtp({ otpId: started.otpId, encryptedOtpBundle, ...(organizationId ? { organizationId } : {}) });
    expect(verified.activity.status, JSON.stringify(verified.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    return verified;
  }

  it("a member cannot read the approver's token, nor use it with her own key, and it proves the approver's change once", async () => {
    const cfo = await addUser("cfo", "cfo@corp.example");
    const mallory = await addUser("mallory", "mallory@corp.example");
    await server.client().createPolicy({
      policyName: "members verify their codes",
      effect: "EFFECT_ALLOW",
      condition: "activity.resource == 'OTP'",
      consensus: "approvers.count() >= 1",
      notes: "",
    });
    await server.client().createPolicy({
      policyName: "the CFO creates tags",
      effect: "EFFECT_ALLOW",
      condition: "activity.type == 'ACTIVITY_TYPE_CREATE_USER_TAG'",
      consensus: "approvers.any(user, user.email == 'cfo@corp.example')",
      notes: "",
    });
    expect(await outcome(mallory.as().createUserTag({ userTagName: "by-mallory-0", userIds: [] }))).toBe(
      "ACTIVITY_STATUS_CONSENSUS_NEEDED",
    );

    // The CFO verifies a code for his own email with his API key: his own answer carries the token.
    const verified = await verifyCode(cfo.as(), "cfo@corp.example", cfo.key);
    const token = verified.verificationToken;
    expect(claimsOf(token)).toMatchObject({ contact: "cfo@corp.example", public_key: cfo.key.publicKey });

    // Nothing another member reads carries it: the activity log, the activity, the webhook deliveries.
    const log = JSON.stringify(await mallory.as().getActivities({}));
    expect(log).toContain(verified.activity.id);
    expect(log.includes(token), "the token is in list_activities").toBe(false);
    const read = await mallory.as().getActivity({ activityId: verified.activity.id });
    expect(read.activity.result.verifyOtpResult?.verificationToken).toBe("<redacted>");
    expect(JSON.stringify(read).includes(token), "the token is in get_activity").toBe(false);
    const deliveries = await hooks.until((all) => all.some((d) => d.body.toString().includes(verified.activity.id)));
    expect(
      deliveries.some((d) => d.body.toString().includes(token)),
      "the token is in a webhook delivery",
    ).toBe(false);

    // Had she copied it anyway, it is bound to the CFO's key: refused, nothing changes, the consensus still waits.
    const copied = await refusal(
      mallory.as().updateUserEmail({ userId: mallory.userId, userEmail: "cfo@corp.example", verificationToken: token }),
    );
    expect(copied.code).toBe(3);
    expect(copied.message).toContain(cfo.key.publicKey);
    expect((await server.client().getUser({ userId: mallory.userId })).user.userEmail).toBe("mallory@corp.example");
    expect(await outcome(mallory.as().createUserTag({ userTagName: "by-mallory-1", userIds: [] }))).toBe(
      "ACTIVITY_STATUS_CONSENSUS_NEEDED",
    );

    // Stamped by the token's key it proves the CFO's change, once; the update's stored intent does not carry it either.
    const proven = await cfo.as().updateUserEmail({ userId: cfo.userId, userEmail: "cfo@corp.example", verificationToken: token });
    expect(proven.activity.status, JSON.stringify(proven.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    const stored = JSON.stringify(await mallory.as().getActivity({ activityId: proven.activity.id }));
    expect(stored.includes(token), "the token is in the update's intent or vote").toBe(false);
    const twice = await refusal(cfo.as().updateUserEmail({ userId: cfo.userId, userEmail: "cfo@corp.example", verificationToken: token }));
    expect(twice.code).toBe(3);
    expect(twice.message).toContain("already used");
    expect((await cfo.as().createUserTag({ userTagName: "by-cfo", userIds: [] })).activity.status).toBe("ACTIVITY_STATUS_COMPLETED");

    // The database holds it nowhere in plaintext (the vote's signed body included).
    let database = "";
    for (const table of ["activities", "votes", "webhook_deliveries"])
      database += JSON.stringify(await server.services.db.query(`SELECT * FROM ${table}`));
    expect(database.includes(token), "the token is stored in plaintext").toBe(false);
  });

  it("a token issued for one sub-organization proves nothing in another, even stamped by its key", async () => {
    const bobKey = generateP256KeyPair();
    const subOrganization = (name: string, apiKey?: KeyPair) =>
      server.client().createSubOrganization({
        subOrganizationName: name,
        rootQuorumThreshold: 1,
        rootUsers: [
          {
            userName: `${name} root`,
            apiKeys: apiKey ? [{ apiKeyName: name, publicKey: apiKey.publicKey, curveType: "API_KEY_CURVE_P256" }] : [],
            authenticators: [],
            oauthProviders: [],
          },
        ],
      });
    const a = await subOrganization("A");
    const b = await subOrganization("B", bobKey);
    const bob = server.client({ apiPublicKey: bobKey.publicKey, apiPrivateKey: bobKey.privateKey }, b.subOrganizationId);
    const bobId = b.rootUserIds![0]!;

    const forA = await verifyCode(server.client(), "bob@b.example", bobKey, a.subOrganizationId);
    expect(claimsOf(forA.verificationToken)).toMatchObject({ organization_id: a.subOrganizationId });
    const refused = await refusal(
      bob.updateUserEmail({ userId: bobId, userEmail: "bob@b.example", verificationToken: forA.verificationToken }),
    );
    expect(refused.code).toBe(3);
    expect(refused.message).toContain(`issued for organization ${a.subOrganizationId}`);
    expect((await bob.getUser({ userId: bobId })).user.userEmail).toBeUndefined();

    // The same code flow for B itself proves Bob's email.
    const forB = await verifyCode(server.client(), "bob@b.example", bobKey, b.subOrganizationId);
    const proven = await bob.updateUserEmail({ userId: bobId, userEmail: "bob@b.example", verificationToken: forB.verificationToken });
    expect(proven.activity.status, JSON.stringify(proven.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
  });

  it("@turnkey/core's update of a user's email keeps working: verified through the auth proxy with a fresh key, stamped by the session", async () => {
    await submitAsRoot(server, "enable_auth_proxy", "ACTIVITY_TYPE_ENABLE_AUTH_PROXY", {});
    const updated = await submitAsRoot(server, "update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", {
      verificationTokenRequiredForGetAccountPii: true,
    });
    const http = coreClient(server, updated.result.updateAuthProxyConfigResult!.configId as string);
    const sessionKey = generateP256KeyPair();
    const kim = await server.client().createSubOrganization({
      subOrganizationName: "Kim's",
      rootQuorumThreshold: 1,
      rootUsers: [
        {
          userName: "kim",
          apiKeys: [{ apiKeyName: "session", publicKey: sessionKey.publicKey, curveType: "API_KEY_CURVE_P256" }],
          authenticators: [],
          oauthProviders: [],
        },
      ],
    });
    const kimId = kim.rootUserIds![0]!;
    const asKim = server.client({ apiPublicKey: sessionKey.publicKey, apiPrivateKey: sessionKey.privateKey }, kim.subOrganizationId);

    // As the kit's handleUpdateUserEmail: initOtp, verifyOtp (core makes a fresh key pair), proxyGetAccount, updateUserEmail.
    const { otpId, otpEncryptionTargetBundle } = await http.proxyInitOtpV2({ otpType: "OTP_TYPE_EMAIL", contact: "kim@example.com" });
    const code = codeIn((await mail.next("kim@example.com")).parsed.text ?? "")!;
    const fresh = generateP256KeyPair();
    const encryptedOtpBundle = await encryptOtpCodeToBundle(
      code,
      otpEncryptionTargetBundle,
      fresh.publicKey,
      server.services.signer.publicKeyHex,
    );
    const { verificationToken } = await http.proxyVerifyOtpV2({ otpId, encryptedOtpBundle });
    expect(claimsOf(verificationToken)).toMatchObject({ organization_id: server.root.organizationId, public_key: fresh.publicKey });
    expect(await http.proxyGetAccount({ filterType: "EMAIL", filterValue: "kim@example.com", verificationToken })).toEqual({});
    const changed = await asKim.updateUserEmail({ userId: kimId, userEmail: "kim@example.com", verificationToken });
    expect(changed.activity.status, JSON.stringify(changed.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(await http.proxyGetAccount({ filterType: "EMAIL", filterValue: "kim@example.com", verificationToken })).toEqual({
      organizationId: kim.subOrganizationId,
    });

    // Once only; and the proxy's verify_otp, in the parent's activity log, does not show it.
    const again = await refusal(asKim.updateUserEmail({ userId: kimId, userEmail: "kim@example.com", verificationToken }));
    expect(again.message).toContain("already used");
    const parentLog = JSON.stringify(await server.client().getActivities({}));
    expect(parentLog).toContain("ACTIVITY_TYPE_VERIFY_OTP_V2");
    expect(parentLog.includes(verificationToken), "the proxy's token is in the parent's activity log").toBe(false);
  });
});
