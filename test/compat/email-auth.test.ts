import { p256 } from "@noble/curves/nist.js";
import { decryptCredentialBundle, generateP256KeyPair } from "@turnkey/crypto";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMailReceiver } from "../helpers/mail-receiver.js";
import { refusal } from "../helpers/refusal.js";
import { SoftwareAuthenticator } from "../helpers/software-authenticator.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/** The API key a credential bundle holds, as a client for `organizationId`. */
function keyFrom(server: TestServer, bundle: string, target: { privateKey: string }, organizationId: string) {
  const privateKey = decryptCredentialBundle(bundle, target.privateKey);
  const publicKey = Buffer.from(p256.getPublicKey(Buffer.from(privateKey, "hex"), true)).toString("hex");
  return { publicKey, client: server.client({ apiPublicKey: publicKey, apiPrivateKey: privateKey }, organizationId) };
}

describe("legacy email and OTP authentication and email recovery", () => {
  let server: TestServer;
  let mail: Awaited<ReturnType<typeof startMailReceiver>>;
  let subOrganizationId: string;
  let bobId: string;

  beforeAll(async () => {
    mail = await startMailReceiver();
    server = await startTestServer({ env: { SMTP_URL: mail.url } });
    const created = await server.client().createSubOrganization({
      subOrganizationName: "Bob's",
      rootQuorumThreshold: 1,
      rootUsers: [{ userName: "bob", userEmail: "bob@example.com", apiKeys: [], authenticators: [], oauthProviders: [] }],
    });
    subOrganizationId = created.subOrganizationId;
    bobId = created.rootUserIds![0]!;
  });
  afterAll(async () => {
    await server.close();
    await mail.close();
  });

  it("init_otp_auth + otp_auth: the code from the email buys a credential bundle whose key acts as the user", async () => {
    const parent = server.client();
    const started = await parent.initOtpAuth({
      organizationId: subOrganizationId,
      otpType: "OTP_TYPE_EMAIL",
      contact: "bob@example.com",
      appName: "Acme",
    });
    expect(started.activity.status, JSON.stringify(started.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    const code = /verification code is ([0-9A-Z]+)/.exec((await mail.next("bob@example.com")).parsed.text ?? "")![1]!;
    const target = generateP256KeyPair();
    const wrong = await parent.otpAuth({
      organizationId: subOrganizationId,
      otpId: started.otpId,
      otpCode: code === "000000000" ? "111111111" : "000000000",
      targetPublicKey: target.publicKeyUncompressed,
    });
    expect(wrong.activity.failure?.message).toContain("2 attempts left");
    const result = await parent.otpAuth({
      organizationId: subOrganizationId,
      otpId: started.otpId,
      otpCode: code,
      targetPublicKey: target.publicKeyUncompressed,
    });
    expect(result.activity.status, JSON.stringify(result.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(result.userId).toBe(bobId);
    const bob = keyFrom(server, result.credentialBundle!, target, subOrganizationId);
    expect((await bob.client.getWhoami({})).userId).toBe(bobId);
    const key = (await parent.getApiKey({ organizationId: subOrganizationId, apiKeyId: result.apiKeyId! })).apiKey;
    expect(key).toMatchObject({
      credential: { publicKey: bob.publicKey, type: "CREDENTIAL_TYPE_OTP_AUTH_KEY_P256" },
      expirationSeconds: "900",
    });

    const unknown = await parent.initOtpAuth({
      organizationId: subOrganizationId,
      otpType: "OTP_TYPE_EMAIL",
      contact: "nobody@example.com",
      appName: "Acme",
    });
    expect(unknown.activity.failure?.message).toContain("no user with email nobody@example.com");
  });

  it("email_auth mails the credential bundle in the magic link", async () => {
    const target = generateP256KeyPair();
    const sent = await server.client().emailAuth({
      organizationId: subOrganizationId,
      email: "bob@example.com",
      targetPublicKey: target.publicKeyUncompressed,
      expirationSeconds: "600",
      emailCustomization: { appName: "Acme", magicLinkTemplate: "https://app.example/auth?bundle=%s" },
    });
    expect(sent.activity.status, JSON.stringify(sent.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(sent.userId).toBe(bobId);
    const message = await mail.next("bob@example.com");
    expect(message.parsed.subject).toBe("Log in to Acme");
    const link = /https:\/\/app\.example\/auth\?bundle=([^\s]+)/.exec(message.parsed.text ?? "")![1]!;
    const bob = keyFrom(server, decodeURIComponent(link), target, subOrganizationId);
    expect((await bob.client.getWhoami({})).userId).toBe(bobId);
    const key = (await server.client().getApiKey({ organizationId: subOrganizationId, apiKeyId: sent.apiKeyId })).apiKey;
    expect(key).toMatchObject({ credential: { type: "CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256" }, expirationSeconds: "600" });
  });

  it("email recovery: the mailed recovery key adds a passkey with recover_user and is then removed", async () => {
    const target = generateP256KeyPair();
    const started = await server.client().initUserEmailRecovery({
      organizationId: subOrganizationId,
      email: "bob@example.com",
      targetPublicKey: target.publicKeyUncompressed,
      emailCustomization: { appName: "Acme" },
    });
    expect(started.activity.status, JSON.stringify(started.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    const message = await mail.next("bob@example.com");
    expect(message.parsed.subject).toBe("Recover your Acme account");
    const bundle = /to recover your Acme account:\n(\S+)/.exec(message.parsed.text ?? "")![1]!;
    const recovery = keyFrom(server, bundle, target, subOrganizationId);
    const authenticator = new SoftwareAuthenticator();
    const challenge = randomBytes(32).toString("base64url");
    const recovered = await recovery.client.recoverUser({
      userId: bobId,
      authenticator: { authenticatorName: "new laptop", challenge, attestation: authenticator.attest(challenge) },
    });
    expect(recovered.activity.status, JSON.stringify(recovered.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    const { authenticators } = await server.client().getAuthenticators({ organizationId: subOrganizationId, userId: bobId });
    expect(authenticators.map((a) => a.authenticatorId)).toEqual(recovered.authenticatorId);
    expect(
      (await server.client().getApiKeys({ organizationId: subOrganizationId, userId: bobId })).apiKeys.filter(
        (k) => k.credential.type === "CREDENTIAL_TYPE_RECOVER_USER_KEY_P256",
      ),
    ).toEqual([]);
  });

  it("a sub-organization created with disableEmailAuth and disableEmailRecovery refuses both", async () => {
    const locked = await server.client().createSubOrganization({
      subOrganizationName: "Locked",
      rootQuorumThreshold: 1,
      rootUsers: [{ userName: "dan", userEmail: "dan@example.com", apiKeys: [], authenticators: [], oauthProviders: [] }],
      disableEmailAuth: true,
      disableEmailRecovery: true,
    });
    const target = generateP256KeyPair().publicKeyUncompressed;
    const auth = await server.client().emailAuth({
      organizationId: locked.subOrganizationId,
      email: "dan@example.com",
      targetPublicKey: target,
      emailCustomization: { appName: "Acme" },
    });
    expect(auth.activity.failure?.message).toContain("FEATURE_NAME_EMAIL_AUTH is disabled");
    const recovery = await server.client().initUserEmailRecovery({
      organizationId: locked.subOrganizationId,
      email: "dan@example.com",
      targetPublicKey: target,
      emailCustomization: { appName: "Acme" },
    });
    expect(recovery.activity.failure?.message).toContain("FEATURE_NAME_EMAIL_RECOVERY is disabled");
  });

  it("set_organization_feature turns email auth off and remove_organization_feature back on, by the root quorum only", async () => {
    const erinKey = generateP256KeyPair();
    const { subOrganizationId: id, rootUserIds } = await server.client().createSubOrganization({
      subOrganizationName: "Erin's",
      rootQuorumThreshold: 1,
      rootUsers: [
        {
          userName: "erin",
          userEmail: "erin@example.com",
          apiKeys: [{ apiKeyName: "erin", publicKey: erinKey.publicKey, curveType: "API_KEY_CURVE_P256" }],
          authenticators: [],
          oauthProviders: [],
        },
      ],
    });
    const erin = server.client({ apiPublicKey: erinKey.publicKey, apiPrivateKey: erinKey.privateKey }, id);
    const sendLink = () =>
      server.client().emailAuth({
        organizationId: id,
        email: "erin@example.com",
        targetPublicKey: generateP256KeyPair().publicKeyUncompressed,
        emailCustomization: { appName: "Acme" },
      });

    const off = await erin.setOrganizationFeature({ name: "FEATURE_NAME_EMAIL_AUTH", value: "false" });
    expect(off.activity.status, JSON.stringify(off.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(off.features).toContainEqual({ name: "FEATURE_NAME_EMAIL_AUTH", value: "false" });
    expect((await erin.getOrganizationConfigs({})).configs.features).toEqual(off.features);
    expect((await sendLink()).activity.failure?.message).toContain("FEATURE_NAME_EMAIL_AUTH is disabled");

    // A policy that lets a non-root user do anything still does not let them change features.
    const frankKey = generateP256KeyPair();
    const { userIds } = await erin.createUsers({
      users: [
        {
          userName: "frank",
          apiKeys: [{ apiKeyName: "frank", publicKey: frankKey.publicKey, curveType: "API_KEY_CURVE_P256" }],
          authenticators: [],
          oauthProviders: [],
          userTags: [],
        },
      ],
    });
    await erin.createPolicy({
      policyName: "frank may",
      effect: "EFFECT_ALLOW",
      condition: "true",
      consensus: `approvers.any(user, user.id == '${userIds[0]}')`,
      notes: "",
    });
    const frank = server.client({ apiPublicKey: frankKey.publicKey, apiPrivateKey: frankKey.privateKey }, id);
    expect((await frank.createUserTag({ userTagName: "allowed", userIds: [] })).activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    const notRoot = await refusal(frank.removeOrganizationFeature({ name: "FEATURE_NAME_EMAIL_AUTH" }));
    expect(notRoot.code).toBe(7);
    expect(notRoot.message).toContain("can only be performed by the root quorum");

    const parentWrite = await refusal(
      server.client().setOrganizationFeature({ organizationId: id, name: "FEATURE_NAME_EMAIL_AUTH", value: "true" }),
    );
    expect(parentWrite.code).toBe(7);
    const unsupported = await refusal(erin.setOrganizationFeature({ name: "FEATURE_NAME_WEBHOOK", value: "https://example.com/hook" }));
    expect(unsupported.code).toBe(3);
    expect(unsupported.message).toContain("FEATURE_NAME_WEBHOOK configures a part of the hosted service");
    const notBoolean = await refusal(erin.setOrganizationFeature({ name: "FEATURE_NAME_EMAIL_AUTH", value: "yes" }));
    expect(notBoolean.message).toContain('value: FEATURE_NAME_EMAIL_AUTH is "true" (enabled) or "false" (disabled), not "yes"');

    const removed = await erin.removeOrganizationFeature({ name: "FEATURE_NAME_EMAIL_AUTH" });
    expect(removed.activity.status, JSON.stringify(removed.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(removed.features.map((f) => f.name)).not.toContain("FEATURE_NAME_EMAIL_AUTH");
    expect(removed.features).toHaveLength(off.features.length - 1);
    const again = await erin.removeOrganizationFeature({ name: "FEATURE_NAME_EMAIL_AUTH" });
    expect(again.activity.failure?.message).toContain(`name: FEATURE_NAME_EMAIL_AUTH is not set in organization ${id}`);
    const sent = await sendLink();
    expect(sent.activity.status, JSON.stringify(sent.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(sent.userId).toBe(rootUserIds![0]);
    await mail.next("erin@example.com");
  });
});
