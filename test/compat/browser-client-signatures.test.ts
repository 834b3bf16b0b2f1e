import { ApiKeyStamper, SignatureFormat } from "@turnkey/api-key-stamper";
import { getClientSignatureMessageForLogin, getClientSignatureMessageForSignup } from "@turnkey/core";
import { generateP256KeyPair } from "@turnkey/crypto";
import { mnemonicToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMailReceiver } from "../helpers/mail-receiver.js";
import { claimsOf, coreClient, coreRefusal, emailedVerificationToken, submitAsRoot } from "../helpers/auth-proxy.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ETHEREUM_ACCOUNT } from "../helpers/wallet-accounts.js";
import { encryptedWalletForRootUser } from "../helpers/wallet-import.js";

type KeyPair = { publicKey: string; privateKey: string };

/**
 * A client signature as @turnkey/core's signUpWithOtp makes one in the browser: SubtleCrypto's raw r‖s
 * (SignatureFormat.Raw), or DER as @turnkey/api-key-stamper's signWithApiKey gives it.
 */
async function clientSignature(built: { message: string; publicKey: string }, key: KeyPair, format: SignatureFormat) {
  const signature = await new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }).sign(built.message, format);
  return { publicKey: built.publicKey, scheme: "CLIENT_SIGNATURE_SCHEME_API_P256" as const, message: built.message, signature };
}

describe("client signatures in either encoding the SDKs produce (raw r‖s from core in the browser, DER)", () => {
  let server: TestServer;
  let mail: Awaited<ReturnType<typeof startMailReceiver>>;
  let configId: string;
  const http = () => coreClient(server, configId);

  beforeAll(async () => {
    mail = await startMailReceiver();
    server = await startTestServer({ env: { SMTP_URL: mail.url, SMTP_FROM: "Strongroom <no-reply@strongroom.test>" } });
    await submitAsRoot(server, "enable_auth_proxy", "ACTIVITY_TYPE_ENABLE_AUTH_PROXY", {});
    const updated = await submitAsRoot(server, "update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", {
      otpLength: 6,
      otpAlphanumeric: false,
    });
    configId = updated.result.updateAuthProxyConfigResult!.configId as string;
  });
  afterAll(async () => {
    await server.close();
    await mail.close();
  });

  /** otp_init_v2 → the emailed code → otp_verify_v2 with the code bound to `key`: a verification token. */
  const verifiedToken = (email: string, key: KeyPair) => emailedVerificationToken(server, http(), mail, email, key.publicKey);

  for (const format of [SignatureFormat.Raw, SignatureFormat.Der]) {
    it(`signup_v2 and otp_login_v2 (auth proxy) and otp_login (public API) accept a ${format} client signature`, async () => {
      const email = `${format}@example.com`;
      const tokenKey = generateP256KeyPair();
      const verificationToken = await verifiedToken(email, tokenKey);
      const signed = await clientSignature(
        getClientSignatureMessageForSignup({ verificationToken, email, apiKeys: [], authenticators: [], oauthProviders: [] }),
        tokenKey,
        format,
      );
      if (format === SignatureFormat.Raw) expect(signed.signature).toMatch(/^[0-9a-f]{128}$/);
      const signedUp = await http().proxySignupV2({
        userEmail: email,
        verificationToken,
        apiKeys: [],
        authenticators: [],
        oauthProviders: [],
        userName: email,
        organizationName: `${format} org`,
        clientSignature: signed,
      });

      const login = {
        verificationToken,
        publicKey: tokenKey.publicKey,
        clientSignature: await clientSignature(getClientSignatureMessageForLogin({ verificationToken }), tokenKey, format),
      };
      const { session } = await http().proxyOtpLoginV2(login);
      expect(claimsOf(session)).toMatchObject({ organization_id: signedUp.organizationId, user_id: signedUp.userId });

      // The public otp_login, submitted by the parent for its sub-organization, with a fresh token.
      const secondKey = generateP256KeyPair();
      const second = await verifiedToken(email, secondKey);
      const activity = await submitAsRoot(
        server,
        "otp_login",
        "ACTIVITY_TYPE_OTP_LOGIN_V2",
        {
          verificationToken: second,
          publicKey: secondKey.publicKey,
          clientSignature: await clientSignature(getClientSignatureMessageForLogin({ verificationToken: second }), secondKey, format),
        },
        signedUp.organizationId,
      );
      expect(activity.status, JSON.stringify(activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
      expect(claimsOf(activity.result.otpLoginResult!.session as string)).toMatchObject({ user_id: signedUp.userId });
    });
  }

  it("a raw signature by another key, or over another message, is refused", async () => {
    const email = "forger@example.com";
    const tokenKey = generateP256KeyPair();
    const verificationToken = await verifiedToken(email, tokenKey);
    const built = getClientSignatureMessageForSignup({ verificationToken, email, apiKeys: [], authenticators: [], oauthProviders: [] });
    const body = { userEmail: email, verificationToken, apiKeys: [], authenticators: [], oauthProviders: [], userName: email };
    const byOther = await clientSignature(built, generateP256KeyPair(), SignatureFormat.Raw);
    const refused = await coreRefusal(http().proxySignupV2({ ...body, clientSignature: { ...byOther, publicKey: tokenKey.publicKey } }));
    expect(refused.message).toContain("does not verify");
    const genuine = await clientSignature(built, tokenKey, SignatureFormat.Raw);
    const otherMessage = { ...genuine, message: built.message.replace("USAGE_TYPE_SIGNUP", "USAGE_TYPE_LOGIN") };
    expect((await coreRefusal(http().proxySignupV2({ ...body, clientSignature: otherMessage }))).message).toContain("does not verify");
  });
});

describe("import_wallet with an empty walletName, as @turnkey/react-wallet-kit's import modal sends it", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  async function importAs(walletName: string) {
    const { userId, mnemonic, encryptedBundle } = await encryptedWalletForRootUser(server);
    return {
      mnemonic,
      imported: await server.client().importWallet({ userId, walletName, encryptedBundle, accounts: [ETHEREUM_ACCOUNT] }),
    };
  }

  it("is imported under a default name; a name that is only too long is still refused", async () => {
    const { mnemonic, imported } = await importAs("");
    expect(imported.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(imported.addresses).toEqual([mnemonicToAccount(mnemonic).address]);
    const { wallet } = await server.client().getWallet({ walletId: imported.walletId });
    expect(wallet.walletName).toMatch(/^Imported wallet \d{4}-\d\d-\d\dT/);

    const tooLong = await importAs("x".repeat(257)).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(tooLong?.message).toContain("walletName");
  });
});
