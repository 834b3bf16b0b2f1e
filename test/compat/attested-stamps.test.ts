import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { ApiKeyStamper, SignatureFormat } from "@turnkey/api-key-stamper";
import { getClientSignatureMessageForSignup, StamperType, TurnkeyClient } from "@turnkey/core";
import { AttestedStamper } from "@turnkey/core/dist/__stampers__/attested/base.js";
import { generateP256KeyPair } from "@turnkey/crypto";
import type { OAuth2Server } from "oauth2-mock-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueVerificationToken } from "../../src/auth/verification-token.js";
import { startMailReceiver } from "../helpers/mail-receiver.js";
import { activityBody, post } from "../helpers/requests.js";
import { claimsOf, coreClient, coreRefusal, emailedVerificationToken, submitAsRoot } from "../helpers/auth-proxy.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { startOidcProvider } from "../helpers/oidc-provider.js";

type KeyPair = { publicKey: string; privateKey: string };
const CLIENT_ID = "attested-test-client";

/**
 * X-Stamp-Attested as @turnkey/core ≥ 2.6 sends it from loginWithOtp and loginWithOauth (and through them
 * completeOtp, completeOauth, signUpWithOtp, signUpWithOauth): core's own AttestedStamper, configured by its
 * TurnkeyClient.overrideAttestedStamper, over an unchanged @turnkey/api-key-stamper holding the client's key
 * (in the browser core keeps that key in IndexedDB), and core's stampLogin with StamperType.Attested.
 */
describe("attested stamps: stamp_login after an OTP or an OAuth login", () => {
  let server: TestServer;
  let mail: Awaited<ReturnType<typeof startMailReceiver>>;
  let provider: OAuth2Server;
  let configId: string;
  let parentId: string;

  const proxy = () => coreClient(server, configId);

  /** Core's client with its attested stamper over `signer` (the key the client holds). */
  function attestedClient(signer: KeyPair) {
    const apiKeyStamper = new ApiKeyStamper({ apiPublicKey: signer.publicKey, apiPrivateKey: signer.privateKey });
    return new TurnkeyClient(
      { apiBaseUrl: server.url, authProxyUrl: server.authProxyUrl, authProxyConfigId: configId, organizationId: parentId },
      apiKeyStamper as never,
      undefined,
      new AttestedStamper(apiKeyStamper as never),
    );
  }

  /** What loginWithOtp does: the token's key stamps stamp_login, attested by the token; organizationId only if given. */
  async function loginWithOtp(verificationToken: string, publicKey: string, options: { organizationId?: string; signer?: KeyPair } = {}) {
    const client = attestedClient(options.signer ?? keys.get(publicKey)!);
    await client.overrideAttestedStamper({ verificationToken, publicKey });
    return client.createHttpClient().stampLogin(
      {
        publicKey,
        expirationSeconds: "900",
        invalidateExisting: false,
        ...(options.organizationId ? { organizationId: options.organizationId } : {}),
      },
      StamperType.Attested,
    );
  }

  /** What loginWithOauth does: the client's key stamps stamp_login, attested by the OIDC token. */
  async function loginWithOauth(oidcToken: string, key: KeyPair, organizationId?: string) {
    const client = attestedClient(key);
    await client.overrideAttestedStamper({ oidcToken, publicKey: key.publicKey });
    return client
      .createHttpClient()
      .stampLogin(
        { publicKey: key.publicKey, expirationSeconds: "900", invalidateExisting: false, ...(organizationId ? { organizationId } : {}) },
        StamperType.Attested,
      );
  }

  const keys = new Map<string, KeyPair>();
  const newKey = () => {
    const key = generateP256KeyPair();
    keys.set(key.publicKey, key);
    return key;
  };

  /** otp_init_v2, the emailed code, otp_verify_v2 binding `key`: core's initOtp and verifyOtp. */
  const verificationTokenFor = (email: string, key: KeyPair) => emailedVerificationToken(server, proxy(), mail, email, key.publicKey);

  const idToken = (claims: Record<string, unknown>) =>
    provider.issuer.buildToken({ scopesOrTransform: (_header, payload) => Object.assign(payload, { aud: CLIENT_ID }, claims) });
  const nonceFor = (publicKey: string) => bytesToHex(sha256(new TextEncoder().encode(publicKey)));

  let zoe: { organizationId: string; userId: string };

  beforeAll(async () => {
    mail = await startMailReceiver();
    let issuer: string;
    ({ provider, issuer } = await startOidcProvider());
    server = await startTestServer({
      env: { SMTP_URL: mail.url, SMTP_FROM: "Strongroom <no-reply@strongroom.test>", OIDC_ISSUERS: issuer },
    });
    parentId = server.root.organizationId;
    await submitAsRoot(server, "enable_auth_proxy", "ACTIVITY_TYPE_ENABLE_AUTH_PROXY", {});
    const updated = await submitAsRoot(server, "update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", {
      otpLength: 6,
      otpAlphanumeric: false,
    });
    configId = updated.result.updateAuthProxyConfigResult!.configId as string;

    // Zoe signs up with an emailed code, as core's signUpWithOtp does: her email is proven.
    const key = newKey();
    const verificationToken = await verificationTokenFor("zoe@example.com", key);
    const built = getClientSignatureMessageForSignup({
      verificationToken,
      email: "zoe@example.com",
      apiKeys: [],
      authenticators: [],
      oauthProviders: [],
    });
    const signature = await new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }).sign(
      built.message,
      SignatureFormat.Raw,
    );
    zoe = await proxy().proxySignupV2({
      userEmail: "zoe@example.com",
      verificationToken,
      userName: "zoe",
      apiKeys: [],
      authenticators: [],
      oauthProviders: [],
      clientSignature: { publicKey: key.publicKey, scheme: "CLIENT_SIGNATURE_SCHEME_API_P256", message: built.message, signature },
    });
    // signUpWithOtp then logs in with loginWithOtp, naming the new sub-organization.
    const { session } = await loginWithOtp(verificationToken, key.publicKey, { organizationId: zoe.organizationId });
    expect(claimsOf(session)).toMatchObject({ organization_id: zoe.organizationId, user_id: zoe.userId, public_key: key.publicKey });
  });
  afterAll(async () => {
    await server?.close();
    await mail?.close();
    await provider?.stop();
  });

  it("a returning user's OTP login (completeOtp: verify, find the account, loginWithOtp) logs in once per token", async () => {
    const key = newKey();
    const token = await verificationTokenFor("zoe@example.com", key);
    expect(await proxy().proxyGetAccount({ filterType: "EMAIL", filterValue: "zoe@example.com", verificationToken: token })).toEqual({
      organizationId: zoe.organizationId,
    });
    const { session, activity } = await loginWithOtp(token, key.publicKey, { organizationId: zoe.organizationId });
    expect(claimsOf(session)).toMatchObject({ organization_id: zoe.organizationId, user_id: zoe.userId, public_key: key.publicKey });
    expect(activity.votes[0]).toMatchObject({
      userId: zoe.userId,
      publicKey: key.publicKey,
      scheme: "STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN",
    });
    // The session key acts for Zoe.
    const asZoe = server.client({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }, zoe.organizationId);
    expect((await asZoe.getWhoami({})).userId).toBe(zoe.userId);

    const again = await coreRefusal(loginWithOtp(token, key.publicKey, { organizationId: zoe.organizationId }));
    expect(again.code).toBe(16);
    expect(again.message).toContain("already used");
  });

  it("loginWithOtp without organizationId names the parent: the verified sub-organization of the token's email is found", async () => {
    const key = newKey();
    const token = await verificationTokenFor("zoe@example.com", key);
    const { session, activity } = await loginWithOtp(token, key.publicKey);
    expect(activity.organizationId).toBe(zoe.organizationId);
    expect(claimsOf(session)).toMatchObject({ organization_id: zoe.organizationId, user_id: zoe.userId });
  });

  it("a sub-organization's email nobody proved is not found through the parent, only when its organization is named", async () => {
    const created = await server.client().createSubOrganization({
      subOrganizationName: "Eve's",
      rootUsers: [{ userName: "eve", userEmail: "eve@example.com", apiKeys: [], authenticators: [], oauthProviders: [] }],
      rootQuorumThreshold: 1,
    });
    const eveOrg = created.subOrganizationId;
    const key = newKey();
    const token = await verificationTokenFor("eve@example.com", key);
    const viaParent = await coreRefusal(loginWithOtp(token, key.publicKey));
    expect(viaParent.code).toBe(16);
    expect(viaParent.message).toContain("eve@example.com");
    // Named, the organization's own user is found by the contact its parent set (as otp_login finds it).
    const { session } = await loginWithOtp(token, key.publicKey, { organizationId: eveOrg });
    expect(claimsOf(session)).toMatchObject({ organization_id: eveOrg, user_id: created.rootUserIds![0] });
  });

  it("refuses a stamp not signed by the token's key, a token bound to another key, and a token of another organization", async () => {
    const key = newKey();
    const token = await verificationTokenFor("zoe@example.com", key);
    const forger = generateP256KeyPair();
    // Core's stamper names the token's key, but another key signs.
    const forged = await coreRefusal(loginWithOtp(token, key.publicKey, { signer: forger, organizationId: zoe.organizationId }));
    expect(forged.code).toBe(16);
    expect(forged.message).toContain("signature");
    // The forger's own key, with a token bound to the victim's key.
    keys.set(forger.publicKey, forger);
    const unbound = await coreRefusal(loginWithOtp(token, forger.publicKey, { organizationId: zoe.organizationId }));
    expect(unbound.code).toBe(16);
    expect(unbound.message).toContain(`bound to public key ${key.publicKey}`);
    // Still usable by its owner: the refusals spent nothing.
    const { session } = await loginWithOtp(token, key.publicKey, { organizationId: zoe.organizationId });
    expect(claimsOf(session)).toMatchObject({ user_id: zoe.userId });

    // A token the sub-organization issued serves that sub-organization only, not its parent.
    const other = await server.client().createSubOrganization({
      subOrganizationName: "Other",
      rootUsers: [{ userName: "o", apiKeys: [], authenticators: [], oauthProviders: [] }],
      rootQuorumThreshold: 1,
    });
    const { token: foreign } = await issueVerificationToken(
      server.services.signer,
      { verificationType: "OTP_TYPE_EMAIL", contact: "zoe@example.com", organizationId: other.subOrganizationId, publicKey: key.publicKey },
      300,
    );
    const wrongOrg = await coreRefusal(loginWithOtp(foreign, key.publicKey, { organizationId: zoe.organizationId }));
    expect(wrongOrg.message).toContain(`issued for organization ${other.subOrganizationId}`);
  });

  it("an attested stamp only logs in: any other request with it is refused", async () => {
    const key = newKey();
    const token = await verificationTokenFor("zoe@example.com", key);
    const client = attestedClient(key);
    await client.overrideAttestedStamper({ verificationToken: token, publicKey: key.publicKey });
    const refused = await coreRefusal(client.createHttpClient().getWhoami({ organizationId: zoe.organizationId }, StamperType.Attested));
    expect(refused.code).toBe(16);
    expect(refused.message).toContain("stamp_login and approve_activity only");
    // A malformed header is a 401 too, never a 500.
    const body = activityBody("ACTIVITY_TYPE_STAMP_LOGIN", parentId, { publicKey: key.publicKey });
    const response = await post(`${server.url}/public/v1/submit/stamp_login`, body, {
      "X-Stamp-Attested": Buffer.from(JSON.stringify({ scheme: "STAMP_ATTESTED_SCHEME_P256_OIDC" })).toString("base64url"),
    });
    expect(response.status).toBe(401);
  });

  it("OAuth: signUpWithOauth then loginWithOauth naming the parent or the sub-organization; the nonce must be sha256 of the key", async () => {
    const registration = await idToken({ sub: "google-user-7" });
    const signedUp = await proxy().proxySignupV2({
      userName: "oidc user",
      apiKeys: [],
      authenticators: [],
      oauthProviders: [{ providerName: "google", oidcToken: registration }],
    });
    const key = newKey();
    const named = await loginWithOauth(
      await idToken({ sub: "google-user-7", nonce: nonceFor(key.publicKey) }),
      key,
      signedUp.organizationId,
    );
    expect(claimsOf(named.session)).toMatchObject({ organization_id: signedUp.organizationId, user_id: signedUp.userId });
    expect(named.activity.votes[0]).toMatchObject({ scheme: "STAMP_ATTESTED_SCHEME_P256_OIDC" });

    const second = newKey();
    const viaParent = await loginWithOauth(await idToken({ sub: "google-user-7", nonce: nonceFor(second.publicKey) }), second);
    expect(viaParent.activity.organizationId).toBe(signedUp.organizationId);
    expect(claimsOf(viaParent.session)).toMatchObject({ organization_id: signedUp.organizationId, user_id: signedUp.userId });

    const third = newKey();
    const wrongNonce = await coreRefusal(loginWithOauth(await idToken({ sub: "google-user-7", nonce: nonceFor(key.publicKey) }), third));
    expect(wrongNonce.code).toBe(16);
    expect(wrongNonce.message).toContain("nonce");
    const stranger = await coreRefusal(loginWithOauth(await idToken({ sub: "nobody", nonce: nonceFor(third.publicKey) }), third));
    expect(stranger.code).toBe(16);
    expect(stranger.message).toContain('subject "nobody"');
  });
});
