import { encryptOtpCodeToBundle, generateP256KeyPair } from "@turnkey/crypto";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { TObject, TSchema } from "@sinclair/typebox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueOidcToken } from "../../src/auth/oidc.js";
import { activitiesByType } from "../../src/pipeline/registry.js";
import { claimsOf, coreClient, submitAsRoot } from "../helpers/auth-proxy.js";
import { startMailReceiver, verificationCodeIn } from "../helpers/mail-receiver.js";
import { activityOutcome, refusal } from "../helpers/refusal.js";
import { addUserWithEmail, allowTagsApprovedByEmail } from "../helpers/email-keyed-consensus.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { startWebhookReceiver } from "../helpers/webhook-receiver.js";

type KeyPair = { publicKey: string; privateKey: string };
type Client = ReturnType<TestServer["client"]>;

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

  const addUser = (userName: string, userEmail: string) => addUserWithEmail(server, userName, userEmail);

  /** init_otp then verify_otp through `client`, the code encrypted with `key` as the token's key: the verify_otp answer. */
  async function verifyCode(client: Client, contact: string, key: KeyPair, organizationId?: string) {
    const started = await client.initOtp({
      otpType: "OTP_TYPE_EMAIL",
      contact,
      appName: "Acme",
      ...(organizationId ? { organizationId } : {}),
    });
    const code = verificationCodeIn((await mail.next(contact)).parsed.text ?? "")!;
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
    await allowTagsApprovedByEmail(server, "cfo@corp.example");
    expect(await activityOutcome(mallory.as().createUserTag({ userTagName: "by-mallory-0", userIds: [] }))).toBe(
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
    expect(await activityOutcome(mallory.as().createUserTag({ userTagName: "by-mallory-1", userIds: [] }))).toBe(
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
    const code = verificationCodeIn((await mail.next("kim@example.com")).parsed.text ?? "")!;
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

  it("an update that waits for consensus keeps its token sealed, runs with it at the deciding approval, and spends it", async () => {
    const approver = await addUser("approver", "approver@corp.example");
    const root = await server.client().getWhoami({});
    const rootKey = { publicKey: server.root.apiPublicKey, privateKey: server.root.apiPrivateKey! };
    // The root user proves the approver's new address (a code verified with the root user's key) and sets it;
    // with a second root user and a threshold of 2, the update waits for the other's approval.
    const token = (await verifyCode(server.client(), "approver-new@corp.example", rootKey)).verificationToken;
    const second = await addUser("second root", "second@corp.example");
    await server.client().updateRootQuorum({ threshold: 2, userIds: [root.userId, second.userId] });
    try {
      const waiting = await server
        .client()
        .updateUserEmail({ userId: approver.userId, userEmail: "approver-new@corp.example", verificationToken: token });
      expect(waiting.activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
      const [row] = await server.services.db.query<{ intent: unknown; sealed_secret_params: string | null }>(
        "SELECT intent, sealed_secret_params FROM activities WHERE id = $1",
        [waiting.activity.id],
      );
      expect(JSON.stringify(row!.intent)).toContain('"verificationToken":"<redacted>"');
      expect(row!.sealed_secret_params).toMatch(/^v2:\d+:/); // sealed under the keyring's data key
      expect(row!.sealed_secret_params!.includes(token)).toBe(false);

      const approved = await second.as().approveActivity({ fingerprint: waiting.activity.fingerprint });
      expect(approved.activity.status, JSON.stringify(approved.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
      expect((await server.client().getUser({ userId: approver.userId })).user.userEmail).toBe("approver-new@corp.example");
      const [done] = await server.services.db.query<{ sealed_secret_params: string | null }>(
        "SELECT sealed_secret_params FROM activities WHERE id = $1",
        [waiting.activity.id],
      );
      expect(done!.sealed_secret_params).toBeNull();
      const [spent] = await server.services.db.query("SELECT usage FROM consumed_verification_tokens WHERE token_id = $1", [
        claimsOf(token).id,
      ]);
      expect(spent).toEqual({ usage: "USAGE_TYPE_UPDATE_CONTACT" });
      expect(JSON.stringify(await approver.as().getActivity({ activityId: waiting.activity.id })).includes(token)).toBe(false);
    } finally {
      const lowered = await server.client().updateRootQuorum({ threshold: 1, userIds: [root.userId] });
      if (lowered.activity.status !== "ACTIVITY_STATUS_COMPLETED")
        await second.as().approveActivity({ fingerprint: lowered.activity.fingerprint });
    }
  });

  it("every other bearer secret an operation declares is stored redacted: OIDC tokens, login tokens, read-only sessions", async () => {
    const member = await addUser("reader", "reader@corp.example");
    const sessionKey = generateP256KeyPair();
    const identity = { sub: "corp:root", aud: "corp-app" };
    const root = await server.client().getWhoami({});
    const registration = await issueOidcToken(
      server.services,
      { ...identity, nonce: bytesToHex(sha256(new TextEncoder().encode(generateP256KeyPair().publicKey))) },
      new Date(),
    );
    const linked = await server
      .client()
      .createOauthProviders({ userId: root.userId, oauthProviders: [{ providerName: "corp", oidcToken: registration }] });
    const loginToken = await issueOidcToken(
      server.services,
      { ...identity, nonce: bytesToHex(sha256(new TextEncoder().encode(sessionKey.publicKey))) },
      new Date(),
    );
    const login = await server.client().oauthLogin({ oidcToken: loginToken, publicKey: sessionKey.publicKey });
    expect(login.activity.status, JSON.stringify(login.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    const readOnly = await server.client().createReadOnlySession({});
    expect(readOnly.session.length).toBeGreaterThan(20); // the submitter's own answer carries it

    const seen = async (activityId: string) => (await member.as().getActivity({ activityId })).activity;
    const linkedIntent = (await seen(linked.activity.id)).intent.createOauthProvidersIntentV2 as {
      oauthProviders: Array<{ oidcToken?: string }>;
    };
    expect(linkedIntent.oauthProviders[0]!.oidcToken).toBe("<redacted>");
    expect((await seen(login.activity.id)).intent.oauthLoginIntent?.oidcToken).toBe("<redacted>");
    expect((await seen(readOnly.activity.id)).result.createReadOnlySessionResult?.session).toBe("<redacted>");
    const log = JSON.stringify(await member.as().getActivities({}));
    for (const secret of [registration, loginToken, readOnly.session]) expect(log.includes(secret)).toBe(false);
  });

  it("each declared secret path names a string field of the operation's parameters or result", () => {
    const at = (schema: TSchema, path: string): TSchema | undefined =>
      path.split(".").reduce<TSchema | undefined>((node, step) => {
        const list = step.endsWith("[]");
        const field = (node as TObject | undefined)?.properties?.[list ? step.slice(0, -2) : step];
        return list ? (field as { items?: TSchema } | undefined)?.items : field;
      }, schema);
    const declared = [...activitiesByType.values()].filter((d) => d.secretFields);
    expect(declared.map((d) => d.operation).sort()).toEqual(
      [
        "create_oauth_providers",
        "create_read_only_session",
        "create_sub_organization",
        "create_users",
        "oauth",
        "oauth2_authenticate",
        "oauth_login",
        "otp_auth",
        "otp_login",
        "update_user_email",
        "update_user_phone_number",
        "verify_otp",
      ].sort(),
    );
    for (const definition of declared) {
      for (const path of definition.secretFields!.intent ?? [])
        expect(at(definition.parameters, path)?.type, `${definition.operation} intent ${path}`).toBe("string");
      for (const path of definition.secretFields!.result ?? [])
        expect(at(definition.result, path)?.type, `${definition.operation} result ${path}`).toBe("string");
    }
  });
});
