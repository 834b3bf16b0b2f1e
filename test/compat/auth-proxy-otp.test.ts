import { getClientSignatureMessageForLogin, getClientSignatureMessageForSignup, signWithApiKey } from "@turnkey/core";
import { encryptOtpCodeToBundle, generateP256KeyPair } from "@turnkey/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMailReceiver, verificationCodeIn } from "../helpers/mail-receiver.js";
import { claimsOf, coreClient, coreRefusal, submitAsRoot } from "../helpers/auth-proxy.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

type KeyPair = { publicKey: string; privateKey: string };

/** A client signature as @turnkey/core makes one: its message helpers, signed with the token's key. */
async function clientSignature(built: { message: string; publicKey: string }, key: KeyPair) {
  const signature = await signWithApiKey({ content: built.message, publicKey: key.publicKey, privateKey: key.privateKey });
  return { publicKey: built.publicKey, scheme: "CLIENT_SIGNATURE_SCHEME_API_P256" as const, message: built.message, signature };
}

describe("OTP signup and login through the auth proxy: @turnkey/core's client and a real SMTP server", () => {
  let server: TestServer;
  let mail: Awaited<ReturnType<typeof startMailReceiver>>;
  let configId: string;
  let zoe: { organizationId: string; userId: string };

  async function submit(operation: string, type: string, parameters: unknown) {
    const activity = await submitAsRoot(server, operation, type, parameters);
    expect(activity.status, JSON.stringify(activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    return activity;
  }

  const http = () => coreClient(server, configId);

  beforeAll(async () => {
    mail = await startMailReceiver();
    server = await startTestServer({ env: { SMTP_URL: mail.url, SMTP_FROM: "Strongroom <no-reply@strongroom.test>" } });
    await submit("enable_auth_proxy", "ACTIVITY_TYPE_ENABLE_AUTH_PROXY", {});
    const updated = await submit("update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", {
      otpLength: 6,
      otpAlphanumeric: false,
      sessionExpirationSeconds: 1800,
      verificationTokenRequiredForGetAccountPii: true,
      emailCustomizationParams: { appName: "Acme" },
      sendFromEmailAddress: "accounts@acme.test",
      sendFromEmailSenderName: "Acme accounts",
    });
    configId = updated.result.updateAuthProxyConfigResult!.configId as string;
  });
  afterAll(async () => {
    await server.close();
    await mail.close();
  });

  it("an emailed code signs Zoe up (otp_init_v2, otp_verify_v2, signup_v2 with core's client signature) and logs her in (otp_login_v2)", async () => {
    const { otpId, otpEncryptionTargetBundle } = await http().proxyInitOtpV2({ otpType: "OTP_TYPE_EMAIL", contact: "zoe@example.com" });
    const message = await mail.next("zoe@example.com");
    expect(message.parsed.subject).toContain("Acme");
    expect(message.parsed.from?.text).toBe('"Acme accounts" <accounts@acme.test>');
    const code = verificationCodeIn(message.parsed.text ?? "")!;
    expect(code).toMatch(/^[0-9]{6}$/); // the config's OTP format

    const tokenKey = generateP256KeyPair();
    const encryptedOtpBundle = await encryptOtpCodeToBundle(
      code,
      otpEncryptionTargetBundle,
      tokenKey.publicKey,
      server.services.signer.publicKeyHex,
    );
    const { verificationToken } = await http().proxyVerifyOtpV2({ otpId, encryptedOtpBundle });

    // With verificationTokenRequiredForGetAccountPii, an email lookup needs a token for that very email.
    expect((await coreRefusal(http().proxyGetAccount({ filterType: "EMAIL", filterValue: "zoe@example.com" }))).code).toBe(7);
    expect(
      (await coreRefusal(http().proxyGetAccount({ filterType: "EMAIL", filterValue: "yan@example.com", verificationToken }))).code,
    ).toBe(3);
    expect(await http().proxyGetAccount({ filterType: "EMAIL", filterValue: "zoe@example.com", verificationToken })).toEqual({});

    const signup = { userEmail: "zoe@example.com", verificationToken, apiKeys: [], authenticators: [], oauthProviders: [] };
    const signed = await clientSignature(
      getClientSignatureMessageForSignup({
        verificationToken,
        email: "zoe@example.com",
        apiKeys: [],
        authenticators: [],
        oauthProviders: [],
      }),
      tokenKey,
    );
    const signedUp = await http().proxySignupV2({
      ...signup,
      userName: "zoe@example.com",
      organizationName: "Zoe's",
      clientSignature: signed,
    });
    zoe = { organizationId: signedUp.organizationId, userId: signedUp.userId };
    expect(await http().proxyGetAccount({ filterType: "EMAIL", filterValue: "zoe@example.com", verificationToken })).toEqual({
      organizationId: zoe.organizationId,
    });

    // As core's completeOtp does: the token's key becomes the session key; the proxy finds the sub-organization.
    const login = {
      verificationToken,
      publicKey: tokenKey.publicKey,
      clientSignature: await clientSignature(getClientSignatureMessageForLogin({ verificationToken }), tokenKey),
    };
    const { session } = await http().proxyOtpLoginV2(login);
    const claims = claimsOf(session);
    expect(claims).toMatchObject({ organization_id: zoe.organizationId, user_id: zoe.userId, public_key: tokenKey.publicKey });
    expect(Number(claims.exp) - Math.floor(Date.now() / 1000)).toBeGreaterThan(1700); // the config's 1800 s
    const asZoe = server.client({ apiPublicKey: tokenKey.publicKey, apiPrivateKey: tokenKey.privateKey }, zoe.organizationId);
    expect((await asZoe.getWhoami({})).userId).toBe(zoe.userId);

    const again = await coreRefusal(http().proxyOtpLoginV2(login));
    expect(again.message).toContain("already used");
  });

  it("the legacy endpoints: otp_init answers only otpId, otp_verify takes the plain code, otp_login logs in", async () => {
    const { otpId } = await http().proxyInitOtp({ otpType: "OTP_TYPE_EMAIL", contact: "zoe@example.com" });
    const code = verificationCodeIn((await mail.next("zoe@example.com")).parsed.text ?? "")!;
    const key = generateP256KeyPair();
    const noKey = await coreRefusal(http().proxyVerifyOtp({ otpId, otpCode: code }));
    expect(noKey.message).toContain("publicKey");
    const wrong = await coreRefusal(
      http().proxyVerifyOtp({ otpId, otpCode: code === "000000" ? "111111" : "000000", publicKey: key.publicKey }),
    );
    expect(wrong.code).toBe(16);
    expect(wrong.message).toContain("incorrect");
    const { verificationToken } = await http().proxyVerifyOtp({ otpId, otpCode: code, publicKey: key.publicKey });
    const { session } = await http().proxyOtpLogin({
      verificationToken,
      publicKey: key.publicKey,
      organizationId: zoe.organizationId,
      clientSignature: await clientSignature(getClientSignatureMessageForLogin({ verificationToken }), key),
    });
    expect(claimsOf(session)).toMatchObject({ organization_id: zoe.organizationId, user_id: zoe.userId });
  });

  it("a channel the config leaves out is refused before any code is sent", async () => {
    await submit("update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", { allowedAuthMethods: ["email", "passkey"] });
    const sms = await coreRefusal(http().proxyInitOtpV2({ otpType: "OTP_TYPE_SMS", contact: "+15555550100" }));
    expect(sms.code).toBe(7);
    expect(sms.message).toContain("sms");
    await submit("update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", { allowedAuthMethods: [] });
  });
});
