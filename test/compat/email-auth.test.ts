import { p256 } from "@noble/curves/nist.js";
import { decryptCredentialBundle, generateP256KeyPair } from "@turnkey/crypto";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMailReceiver } from "../helpers/mail-receiver.js";
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
    const started = await parent.initOtpAuth({ organizationId: subOrganizationId, otpType: "OTP_TYPE_EMAIL", contact: "bob@example.com", appName: "Acme" });
    expect(started.activity.status, JSON.stringify(started.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    const code = /verification code is ([0-9A-Z]+)/.exec((await mail.next("bob@example.com")).parsed.text ?? "")![1]!;
    const target = generateP256KeyPair();
    const wrong = await parent.otpAuth({ organizationId: subOrganizationId, otpId: started.otpId, otpCode: code === "000000000" ? "111111111" : "000000000", targetPublicKey: target.publicKeyUncompressed });
    expect(wrong.activity.failure?.message).toContain("2 attempts left");
    const result = await parent.otpAuth({ organizationId: subOrganizationId, otpId: started.otpId, otpCode: code, targetPublicKey: target.publicKeyUncompressed });
    expect(result.activity.status, JSON.stringify(result.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(result.userId).toBe(bobId);
    const bob = keyFrom(server, result.credentialBundle!, target, subOrganizationId);
    expect((await bob.client.getWhoami({})).userId).toBe(bobId);
    const key = (await parent.getApiKey({ organizationId: subOrganizationId, apiKeyId: result.apiKeyId! })).apiKey;
    expect(key).toMatchObject({ credential: { publicKey: bob.publicKey, type: "CREDENTIAL_TYPE_OTP_AUTH_KEY_P256" }, expirationSeconds: "900" });

    const unknown = await parent.initOtpAuth({ organizationId: subOrganizationId, otpType: "OTP_TYPE_EMAIL", contact: "nobody@example.com", appName: "Acme" });
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
    const recovered = await recovery.client.recoverUser({ userId: bobId, authenticator: { authenticatorName: "new laptop", challenge, attestation: authenticator.attest(challenge) } });
    expect(recovered.activity.status, JSON.stringify(recovered.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    const { authenticators } = await server.client().getAuthenticators({ organizationId: subOrganizationId, userId: bobId });
    expect(authenticators.map((a) => a.authenticatorId)).toEqual(recovered.authenticatorId);
    expect((await server.client().getApiKeys({ organizationId: subOrganizationId, userId: bobId })).apiKeys.filter((k) => k.credential.type === "CREDENTIAL_TYPE_RECOVER_USER_KEY_P256")).toEqual([]);
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
    const auth = await server.client().emailAuth({ organizationId: locked.subOrganizationId, email: "dan@example.com", targetPublicKey: target, emailCustomization: { appName: "Acme" } });
    expect(auth.activity.failure?.message).toContain("FEATURE_NAME_EMAIL_AUTH is disabled");
    const recovery = await server.client().initUserEmailRecovery({ organizationId: locked.subOrganizationId, email: "dan@example.com", targetPublicKey: target, emailCustomization: { appName: "Acme" } });
    expect(recovery.activity.failure?.message).toContain("FEATURE_NAME_EMAIL_RECOVERY is disabled");
  });
});
