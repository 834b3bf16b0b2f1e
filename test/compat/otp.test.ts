import { signWithApiKey } from "@turnkey/api-key-stamper";
import { encryptOtpCodeToBundle, generateP256KeyPair, verifyOtpVerificationToken, verifySessionJwtSignature } from "@turnkey/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMailReceiver, verificationCodeIn } from "../helpers/mail-receiver.js";
import { refusal } from "../helpers/refusal.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { startWebhookReceiver } from "../helpers/webhook-receiver.js";

type Client = ReturnType<TestServer["client"]>;

/** A client signature as @turnkey/core makes it: the token's key signs the usage message (DER hex over sha256). */
async function loginSignature(tokenKey: { publicKey: string; privateKey: string }, tokenId: string, sessionPublicKey: string) {
  const message = JSON.stringify({ login: { publicKey: sessionPublicKey }, tokenId, type: "USAGE_TYPE_LOGIN" });
  const signature = await signWithApiKey({ content: message, publicKey: tokenKey.publicKey, privateKey: tokenKey.privateKey });
  return { publicKey: tokenKey.publicKey, scheme: "CLIENT_SIGNATURE_SCHEME_API_P256" as const, message, signature };
}

const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()) as Record<string, string>;

describe("OTP through @turnkey/sdk-server, with a real SMTP server and SMS hook", () => {
  let server: TestServer;
  let mail: Awaited<ReturnType<typeof startMailReceiver>>;
  let sms: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let now = Date.now();
  let parent: Client;
  let subOrganizationId: string;
  let aliceId: string;

  beforeAll(async () => {
    mail = await startMailReceiver();
    sms = await startWebhookReceiver();
    server = await startTestServer({
      clock: () => new Date(now),
      env: { SMTP_URL: mail.url, SMTP_FROM: "Acme <no-reply@acme.test>", SMS_WEBHOOK_URL: sms.url },
    });
    parent = server.client();
    const created = await parent.createSubOrganization({
      subOrganizationName: "Alice's",
      rootQuorumThreshold: 1,
      rootUsers: [
        {
          userName: "alice",
          userEmail: "alice@example.com",
          userPhoneNumber: "+15555550123",
          apiKeys: [],
          authenticators: [],
          oauthProviders: [],
        },
      ],
    });
    subOrganizationId = created.subOrganizationId;
    aliceId = created.rootUserIds![0]!;
  });
  afterAll(async () => {
    await server.close();
    await mail.close();
    await sms.close();
  });

  /** init_otp for `contact` (as the parent, for the sub-organization by default) and the code from the message. */
  async function sendCode(contact: string, extra: Record<string, unknown> = {}, organizationId = subOrganizationId) {
    const started = await parent.initOtp({ organizationId, otpType: "OTP_TYPE_EMAIL", contact, appName: "Acme", ...extra } as Parameters<
      Client["initOtp"]
    >[0]);
    expect(started.activity.status, JSON.stringify(started.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    const message = await mail.next(contact);
    return { ...started, message, code: verificationCodeIn(message.parsed.text ?? "")! };
  }

  async function verify(
    otpId: string,
    bundle: string,
    code: string,
    key = generateP256KeyPair(),
    extra: Record<string, unknown> = {},
    organizationId = subOrganizationId,
  ) {
    const encryptedOtpBundle = await encryptOtpCodeToBundle(code, bundle, key.publicKey, server.services.signer.publicKeyHex);
    const result = await parent.verifyOtp({ organizationId, otpId, encryptedOtpBundle, ...extra });
    return { result, key };
  }

  it("emails a code, verifies it, logs the user in with a client signature, and the session key acts", async () => {
    const sent = await sendCode("alice@example.com");
    expect(sent.message.authenticatedAs).toBe("mailer");
    expect(sent.message.parsed.from?.text).toBe('"Acme" <no-reply@acme.test>');
    expect(sent.message.parsed.subject).toBe("Acme verification code");
    expect(sent.code).toMatch(/^[0-9ABCDEFGHJKMNPQRSTVWXYZ]{9}$/); // defaults: 9 characters, Crockford base32
    expect(sent.message.parsed.html).toContain(sent.code);

    const { result, key } = await verify(sent.otpId, sent.otpEncryptionTargetBundle, sent.code.toLowerCase());
    expect(result.activity.status, JSON.stringify(result.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    const token = result.verificationToken;
    await expect(verifyOtpVerificationToken(token, server.services.signer.publicKeyHex)).resolves.toMatchObject({
      contact: "alice@example.com",
    });
    const claims = claimsOf(token);
    expect(claims).toMatchObject({
      verification_type: "OTP_TYPE_EMAIL",
      contact: "alice@example.com",
      organization_id: subOrganizationId,
      public_key: key.publicKey,
    });
    expect(Number(claims.exp) - now).toBe(3600 * 1000); // default: one hour, in milliseconds

    const verifiedSuborgs = async () =>
      (await parent.getVerifiedSubOrgIds({ filterType: "EMAIL", filterValue: "alice@example.com" })).organizationIds;
    expect(await verifiedSuborgs()).toEqual([]);
    const sessionKey = generateP256KeyPair();
    const login = await parent.otpLogin({
      organizationId: subOrganizationId,
      verificationToken: token,
      publicKey: sessionKey.publicKey,
      clientSignature: await loginSignature(key, claims.id!, sessionKey.publicKey),
    });
    expect(login.activity.status, JSON.stringify(login.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    await expect(verifySessionJwtSignature(login.session, server.services.signer.publicKeyHex)).resolves.toBe(true);
    expect(claimsOf(login.session)).toMatchObject({
      user_id: aliceId,
      organization_id: subOrganizationId,
      public_key: sessionKey.publicKey,
    });
    const alice = server.client({ apiPublicKey: sessionKey.publicKey, apiPrivateKey: sessionKey.privateKey }, subOrganizationId);
    expect(await alice.getWhoami({})).toMatchObject({ userId: aliceId, organizationId: subOrganizationId });
    expect(await verifiedSuborgs()).toEqual([subOrganizationId]); // the login proved alice's email

    // A token logs in once.
    const otherSession = generateP256KeyPair();
    const again = await parent.otpLogin({
      organizationId: subOrganizationId,
      verificationToken: token,
      publicKey: otherSession.publicKey,
      clientSignature: await loginSignature(key, claims.id!, otherSession.publicKey),
    });
    expect(again.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(again.activity.failure?.message).toContain("already used");

    // The code is used once too.
    const reused = await verify(sent.otpId, sent.otpEncryptionTargetBundle, sent.code);
    expect(reused.result.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(reused.result.activity.failure?.message).toContain("already used");

    // update_user_email: the login's token is bound to the key that verified the code, not to alice's session key.
    const unbound = await refusal(alice.updateUserEmail({ userId: aliceId, userEmail: "alice@example.com", verificationToken: token }));
    expect(unbound.code).toBe(3);
    expect(unbound.message).toContain(`bound to public key ${key.publicKey}`);
    // A code verified with the session key proves the email for an update that key stamps; one for another email is refused.
    const fresh = await sendCode("alice@example.com");
    const freshToken = (await verify(fresh.otpId, fresh.otpEncryptionTargetBundle, fresh.code, sessionKey)).result.verificationToken;
    expect(
      (await alice.updateUserEmail({ userId: aliceId, userEmail: "alice@example.com", verificationToken: freshToken })).activity.status,
    ).toBe("ACTIVITY_STATUS_COMPLETED");
    const other = await sendCode("someone-else@example.com");
    const otherToken = (await verify(other.otpId, other.otpEncryptionTargetBundle, other.code, sessionKey)).result.verificationToken;
    const refused = await refusal(
      alice.updateUserEmail({ userId: aliceId, userEmail: "alice@example.com", verificationToken: otherToken }),
    );
    expect(refused.code).toBe(3);
    expect(refused.message).toContain("another contact");
  });

  it("refuses a login whose client signature is not by the token's key, names another session key, or whose token belongs elsewhere", async () => {
    const sent = await sendCode("alice@example.com", { otpLength: 6, alphanumeric: false });
    expect(sent.code).toMatch(/^[0-9]{6}$/);
    const { result, key } = await verify(sent.otpId, sent.otpEncryptionTargetBundle, sent.code);
    const token = result.verificationToken;
    const tokenId = claimsOf(token).id!;
    const sessionKey = generateP256KeyPair();
    const stranger = generateP256KeyPair();
    const wrongSigner = await refusal(
      parent.otpLogin({
        organizationId: subOrganizationId,
        verificationToken: token,
        publicKey: sessionKey.publicKey,
        clientSignature: await loginSignature(stranger, tokenId, sessionKey.publicKey),
      }),
    );
    expect(wrongSigner.message).toContain("clientSignature");
    const forged = { ...(await loginSignature(stranger, tokenId, sessionKey.publicKey)), publicKey: key.publicKey };
    expect(
      (
        await refusal(
          parent.otpLogin({
            organizationId: subOrganizationId,
            verificationToken: token,
            publicKey: sessionKey.publicKey,
            clientSignature: forged,
          }),
        )
      ).message,
    ).toContain("does not verify");
    const otherKey = await refusal(
      parent.otpLogin({
        organizationId: subOrganizationId,
        verificationToken: token,
        publicKey: sessionKey.publicKey,
        clientSignature: await loginSignature(key, tokenId, stranger.publicKey),
      }),
    );
    expect(otherKey.message).toContain("not the publicKey");
    // A sub-organization's token is no good in its parent.
    const inParent = await refusal(
      parent.otpLogin({
        verificationToken: token,
        publicKey: sessionKey.publicKey,
        clientSignature: await loginSignature(key, tokenId, sessionKey.publicKey),
      }),
    );
    expect(inParent.message).toContain("neither");
    // None of these refusals used the token up.
    const ok = await parent.otpLogin({
      organizationId: subOrganizationId,
      verificationToken: token,
      publicKey: sessionKey.publicKey,
      clientSignature: await loginSignature(key, tokenId, sessionKey.publicKey),
    });
    expect(ok.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
  });

  it("a parent organization's token logs its sub-organization's user in", async () => {
    const sent = await sendCode("alice@example.com", {}, server.root.organizationId);
    const { result, key } = await verify(sent.otpId, sent.otpEncryptionTargetBundle, sent.code, undefined, {}, server.root.organizationId);
    const token = result.verificationToken;
    expect(claimsOf(token).organization_id).toBe(server.root.organizationId);
    const sessionKey = generateP256KeyPair();
    const login = await parent.otpLogin({
      organizationId: subOrganizationId,
      verificationToken: token,
      publicKey: sessionKey.publicKey,
      clientSignature: await loginSignature(key, claimsOf(token).id!, sessionKey.publicKey),
    });
    expect(login.activity.status, JSON.stringify(login.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(claimsOf(login.session).user_id).toBe(aliceId);
    // The parent itself has no user with that email.
    const sent2 = await sendCode("alice@example.com", {}, server.root.organizationId);
    const second = await verify(sent2.otpId, sent2.otpEncryptionTargetBundle, sent2.code, undefined, {}, server.root.organizationId);
    const inParent = await parent.otpLogin({
      verificationToken: second.result.verificationToken,
      publicKey: sessionKey.publicKey,
      clientSignature: await loginSignature(second.key, claimsOf(second.result.verificationToken).id!, sessionKey.publicKey),
    });
    expect(inParent.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(inParent.activity.failure?.message).toContain("no user with email alice@example.com");
  });

  it("counts wrong codes although the activity fails, and locks the code after three", async () => {
    const sent = await sendCode("wrong@example.com", { otpLength: 6, alphanumeric: false });
    const wrong = sent.code === "000000" ? "111111" : "000000";
    const messages: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { result } = await verify(sent.otpId, sent.otpEncryptionTargetBundle, wrong);
      expect(result.activity.status).toBe("ACTIVITY_STATUS_FAILED");
      messages.push(result.activity.failure?.message ?? "");
    }
    expect(messages).toEqual([
      expect.stringContaining("2 attempts left"),
      expect.stringContaining("1 attempt left"),
      expect.stringContaining("now locked"),
    ]);
    const right = await verify(sent.otpId, sent.otpEncryptionTargetBundle, sent.code);
    expect(right.result.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(right.result.activity.failure?.message).toContain("locked after 3 wrong attempts");
    const [row] = await server.services.db.query<{ attempts: number; used_at: Date | null }>(
      "SELECT attempts, used_at FROM otp_codes WHERE id = $1",
      [sent.otpId],
    );
    expect(row).toEqual({ attempts: 3, used_at: null });
  });

  it("concurrent guesses at one code get three attempts in all", async () => {
    const sent = await sendCode("racing@example.com", { otpLength: 6, alphanumeric: false });
    const wrong = sent.code === "000000" ? "111111" : "000000";
    const key = generateP256KeyPair();
    const bundles = await Promise.all(
      Array.from({ length: 6 }, () =>
        encryptOtpCodeToBundle(wrong, sent.otpEncryptionTargetBundle, key.publicKey, server.services.signer.publicKeyHex),
      ),
    );
    const results = await Promise.all(
      bundles.map((encryptedOtpBundle) => parent.verifyOtp({ organizationId: subOrganizationId, otpId: sent.otpId, encryptedOtpBundle })),
    );
    const messages = results.map((r) => r.activity.failure?.message ?? "");
    expect(messages.filter((m) => m.includes("incorrect"))).toHaveLength(3);
    expect(messages.filter((m) => m.includes("locked after 3"))).toHaveLength(3);
  });

  it("refuses an expired code and an expired verification token (controlled clock)", async () => {
    const sent = await sendCode("late@example.com", { expirationSeconds: "60" });
    expect(
      (
        await refusal(
          parent.initOtp({
            organizationId: subOrganizationId,
            otpType: "OTP_TYPE_EMAIL",
            contact: "late@example.com",
            appName: "Acme",
            expirationSeconds: "601",
          }),
        )
      ).message,
    ).toContain("expirationSeconds");
    now += 61_000;
    const late = await verify(sent.otpId, sent.otpEncryptionTargetBundle, sent.code);
    expect(late.result.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(late.result.activity.failure?.message).toContain("expired");

    const fresh = await sendCode("alice@example.com");
    const { result, key } = await verify(fresh.otpId, fresh.otpEncryptionTargetBundle, fresh.code, undefined, { expirationSeconds: "120" });
    expect(
      (await refusal(verify(fresh.otpId, fresh.otpEncryptionTargetBundle, fresh.code, undefined, { expirationSeconds: "86401" }))).message,
    ).toContain("expirationSeconds");
    now += 121_000;
    const sessionKey = generateP256KeyPair();
    const expired = await refusal(
      parent.otpLogin({
        organizationId: subOrganizationId,
        verificationToken: result.verificationToken,
        publicKey: sessionKey.publicKey,
        clientSignature: await loginSignature(key, claimsOf(result.verificationToken).id!, sessionKey.publicKey),
      }),
    );
    expect(expired.code).toBe(3);
    expect(expired.message).toContain("expired");
    now = Date.now();
  });

  it("rate-limits a userIdentifier to 3 codes per 3 minutes and a contact to 3 active codes", async () => {
    for (let i = 0; i < 3; i++) await sendCode(`limited${i}@example.com`, { userIdentifier: "client-ip-hash" });
    const fourth = await parent.initOtp({
      organizationId: subOrganizationId,
      otpType: "OTP_TYPE_EMAIL",
      contact: "limited3@example.com",
      appName: "Acme",
      userIdentifier: "client-ip-hash",
    });
    expect(fourth.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(fourth.activity.failure?.message).toContain("at most 3 codes per 3 minutes");
    expect(fourth.activity.failure?.details).toContainEqual(expect.objectContaining({ turnkeyErrorCode: "RATE_LIMIT_EXCEEDED" }));
    now += 181_000;
    await sendCode("limited3@example.com", { userIdentifier: "client-ip-hash" });

    for (let i = 0; i < 3; i++) await sendCode("busy@example.com");
    const tooMany = await parent.initOtp({
      organizationId: subOrganizationId,
      otpType: "OTP_TYPE_EMAIL",
      contact: "BUSY@example.com",
      appName: "Acme",
    });
    expect(tooMany.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(tooMany.activity.failure?.message).toContain("already has 3 active codes");
    expect(tooMany.activity.failure?.details).toContainEqual(expect.objectContaining({ turnkeyErrorCode: "RATE_LIMIT_EXCEEDED" }));
    expect(mail.received.filter((m) => m.recipients.includes("BUSY@example.com"))).toHaveLength(0);
    now += 301_000; // the codes expire, the contact may ask again
    await sendCode("busy@example.com");
    now = Date.now();
  });

  it("sends SMS and WhatsApp codes through the HTTP hook, with the message template", async () => {
    const started = await parent.initOtp({
      organizationId: subOrganizationId,
      otpType: "OTP_TYPE_SMS",
      contact: "+15555550123",
      appName: "Acme",
      otpLength: 7,
      alphanumeric: false,
      smsCustomization: { template: "Acme code: {{.OtpCode}}. Do not share it." },
    });
    expect(started.activity.status, JSON.stringify(started.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    const [delivery] = await sms.until((all) => all.length >= 1);
    const body = JSON.parse(delivery!.body.toString()) as { to: string; channel: string; text: string };
    expect(body).toMatchObject({ to: "+15555550123", channel: "SMS" });
    const code = /^Acme code: ([0-9]{7})\. Do not share it\.$/.exec(body.text)?.[1];
    expect(code).toBeDefined();
    const { result, key } = await verify(started.otpId, started.otpEncryptionTargetBundle, code!);
    expect(claimsOf(result.verificationToken)).toMatchObject({ verification_type: "OTP_TYPE_SMS", contact: "+15555550123" });
    const sessionKey = generateP256KeyPair();
    const login = await parent.otpLogin({
      organizationId: subOrganizationId,
      verificationToken: result.verificationToken,
      publicKey: sessionKey.publicKey,
      clientSignature: await loginSignature(key, claimsOf(result.verificationToken).id!, sessionKey.publicKey),
    });
    expect(claimsOf(login.session).user_id).toBe(aliceId);

    const whatsapp = await parent.initOtp({
      organizationId: subOrganizationId,
      otpType: "OTP_TYPE_WHATSAPP",
      contact: "+15555550199",
      appName: "Acme",
    });
    expect(whatsapp.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    const deliveries = await sms.until((all) => all.length >= 2);
    expect(JSON.parse(deliveries[1]!.body.toString())).toMatchObject({
      to: "+15555550199",
      channel: "WHATSAPP",
      text: expect.stringMatching(/^Your Acme code is [0-9A-Z]{9}$/),
    });

    const bad = await refusal(
      parent.initOtp({ organizationId: subOrganizationId, otpType: "OTP_TYPE_SMS", contact: "555-0123", appName: "Acme" }),
    );
    expect(bad.message).toContain("E.164");
    const badTemplate = await refusal(
      parent.initOtp({
        organizationId: subOrganizationId,
        otpType: "OTP_TYPE_SMS",
        contact: "+15555550123",
        appName: "Acme",
        smsCustomization: { template: "no code" },
      }),
    );
    expect(badTemplate.message).toContain("{{.OtpCode}}");
    expect(
      (
        await refusal(
          parent.initOtp({
            organizationId: subOrganizationId,
            otpType: "OTP_TYPE_EMAIL",
            contact: "a@b.co",
            appName: "Acme",
            otpLength: 5,
          }),
        )
      ).message,
    ).toContain("otpLength");
  });

  it("respects a sub-organization created with disableOtpEmailAuth", async () => {
    const locked = await parent.createSubOrganization({
      subOrganizationName: "No email OTP",
      rootQuorumThreshold: 1,
      rootUsers: [{ userName: "carol", userEmail: "carol@example.com", apiKeys: [], authenticators: [], oauthProviders: [] }],
      disableOtpEmailAuth: true,
    });
    const refused = await parent.initOtp({
      organizationId: locked.subOrganizationId,
      otpType: "OTP_TYPE_EMAIL",
      contact: "carol@example.com",
      appName: "Acme",
    });
    expect(refused.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(refused.activity.failure?.message).toContain("FEATURE_NAME_OTP_EMAIL_AUTH is disabled");
  });
});

describe("OTP without messaging configured", () => {
  it("refuses with the variable to set, and stores and sends nothing", async () => {
    const server = await startTestServer();
    try {
      const email = await server.client().initOtp({ otpType: "OTP_TYPE_EMAIL", contact: "x@example.com", appName: "Acme" });
      expect(email.activity.status).toBe("ACTIVITY_STATUS_FAILED");
      expect(email.activity.failure?.message).toContain("set SMTP_URL");
      const text = await server.client().initOtp({ otpType: "OTP_TYPE_SMS", contact: "+15555550123", appName: "Acme" });
      expect(text.activity.failure?.message).toContain("set SMS_WEBHOOK_URL");
      expect(await server.services.db.query("SELECT id FROM otp_codes")).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
