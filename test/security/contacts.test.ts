import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { getClientSignatureMessageForLogin, getClientSignatureMessageForSignup, signWithApiKey } from "@turnkey/core";
import { generateP256KeyPair } from "@turnkey/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueOidcToken } from "../../src/auth/oidc.js";
import { issueVerificationToken } from "../../src/auth/verification-token.js";
import { claimsOf, coreClient, coreRefusal, submitAsRoot } from "../helpers/auth-proxy.js";
import { activityOutcome, refusal } from "../helpers/refusal.js";
import { addUserWithEmail, allowTagsApprovedByEmail } from "../helpers/email-keyed-consensus.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

type KeyPair = { publicKey: string; privateKey: string };

const nonceFor = (publicKey: string) => bytesToHex(sha256(new TextEncoder().encode(publicKey)));

/**
 * Finding 1 of issue 13: nothing a user sets on themselves (email, phone number, name) may satisfy a policy.
 * Finding 2: a lookup that authenticates someone by a contact or an OIDC identity finds only what was
 * proven, so an attacker who signs up first with a victim's contact or identity captures nobody.
 */
describe("contacts and identities a user asserts without proof grant nothing", () => {
  let server: TestServer;
  const newUser = (userName: string, userEmail: string) => addUserWithEmail(server, userName, userEmail);

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  it("a user cannot copy an approver's email onto themselves to pass a consensus keyed on it (escalation)", async () => {
    const cfo = await newUser("cfo", "cfo@corp.example");
    const mallory = await newUser("mallory", "mallory@corp.example");
    await allowTagsApprovedByEmail(server, "cfo@corp.example");
    // The documented admin flow: an admin set the CFO's email, and the policy keyed on it works.
    expect((await cfo.as().createUserTag({ userTagName: "by-cfo", userIds: [] })).activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(await activityOutcome(mallory.as().createUserTag({ userTagName: "by-mallory-0", userIds: [] }))).toBe(
      "ACTIVITY_STATUS_CONSENSUS_NEEDED",
    );

    // Every self-service way to set the email without proof is refused, and nothing changes.
    expect((await refusal(mallory.as().updateUserEmail({ userId: mallory.userId, userEmail: "cfo@corp.example" }))).code).toBe(7);
    expect((await refusal(mallory.as().updateUser({ userId: mallory.userId, userEmail: "cfo@corp.example", userTagIds: [] }))).code).toBe(
      7,
    );
    expect((await refusal(mallory.as().updateUserPhoneNumber({ userId: mallory.userId, userPhoneNumber: "+15550009999" }))).code).toBe(7);
    expect((await server.client().getUser({ userId: mallory.userId })).user.userEmail).toBe("mallory@corp.example");
    expect(await activityOutcome(mallory.as().createUserTag({ userTagName: "by-mallory-1", userIds: [] }))).toBe(
      "ACTIVITY_STATUS_CONSENSUS_NEEDED",
    );

    // With a verification token for the new value, bound to her key, she may change it herself: a token proves control.
    const { token } = await issueVerificationToken(
      server.services.signer,
      {
        verificationType: "OTP_TYPE_EMAIL",
        contact: "mallory@home.example",
        organizationId: server.root.organizationId,
        publicKey: mallory.key.publicKey,
      },
      300,
    );
    const proven = await mallory
      .as()
      .updateUserEmail({ userId: mallory.userId, userEmail: "mallory@home.example", verificationToken: token });
    expect(proven.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
  });

  it("a contact or name a policy let the user set on themselves without proof is invisible to policies", async () => {
    const eve = await newUser("eve", "eve@corp.example");
    await server.client().createPolicy({
      policyName: "eve edits users",
      effect: "EFFECT_ALLOW",
      condition: "activity.resource == 'USER' && activity.action == 'UPDATE'",
      consensus: `approvers.any(user, user.id == '${eve.userId}')`,
      notes: "",
    });
    await server.client().createPolicy({
      policyName: "the treasurer creates tags",
      effect: "EFFECT_ALLOW",
      condition: "activity.type == 'ACTIVITY_TYPE_CREATE_USER_TAG'",
      consensus: "approvers.any(user, user.alias == 'treasurer' || user.email == 'treasury@corp.example')",
      notes: "",
    });
    // The policy allows the changes, but a value she asserted about herself satisfies no policy.
    expect((await eve.as().updateUserEmail({ userId: eve.userId, userEmail: "treasury@corp.example" })).activity.status).toBe(
      "ACTIVITY_STATUS_COMPLETED",
    );
    expect(await activityOutcome(eve.as().createUserTag({ userTagName: "by-eve-0", userIds: [] }))).toBe(
      "ACTIVITY_STATUS_CONSENSUS_NEEDED",
    );
    expect((await eve.as().updateUserName({ userId: eve.userId, userName: "treasurer" })).activity.status).toBe(
      "ACTIVITY_STATUS_COMPLETED",
    );
    expect(await activityOutcome(eve.as().createUserTag({ userTagName: "by-eve-1", userIds: [] }))).toBe(
      "ACTIVITY_STATUS_CONSENSUS_NEEDED",
    );
    // Without such a policy, renaming oneself is not self-service any more: a free name a policy names is a permission.
    const ivan = await newUser("ivan", "ivan@corp.example");
    // (here "eve edits users" applies and waits for Eve's approval; with no policy it is a 403)
    expect(await activityOutcome(ivan.as().updateUserName({ userId: ivan.userId, userName: "treasurer-2" }))).toBe(
      "ACTIVITY_STATUS_CONSENSUS_NEEDED",
    );
    expect((await server.client().getUser({ userId: ivan.userId })).user.userName).toBe("ivan");
    // Set by an administrator, the same name is trusted again.
    await server.client().updateUserName({ userId: eve.userId, userName: "treasurer" });
    expect((await eve.as().createUserTag({ userTagName: "by-eve-2", userIds: [] })).activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
  });

  it("an OTP login by a contact never lands on a user who only asserted that contact about themselves", async () => {
    const mike = await newUser("mike", "mike@corp.example"); // older than Carol: the oldest holder used to win
    const carol = await newUser("carol", "carol.finance@corp.example");
    await server.client().createPolicy({
      policyName: "mike edits users",
      effect: "EFFECT_ALLOW",
      condition: "activity.resource == 'USER' && activity.action == 'UPDATE'",
      consensus: `approvers.any(user, user.id == '${mike.userId}')`,
      notes: "",
    });
    expect((await mike.as().updateUserEmail({ userId: mike.userId, userEmail: "carol.finance@corp.example" })).activity.status).toBe(
      "ACTIVITY_STATUS_COMPLETED",
    );

    const key = generateP256KeyPair();
    const { token, claims } = await issueVerificationToken(
      server.services.signer,
      {
        verificationType: "OTP_TYPE_EMAIL",
        contact: "carol.finance@corp.example",
        organizationId: server.root.organizationId,
        publicKey: key.publicKey,
      },
      300,
    );
    const session = generateP256KeyPair();
    const message = JSON.stringify({ login: { publicKey: session.publicKey }, tokenId: claims.id, type: "USAGE_TYPE_LOGIN" });
    const signature = await signWithApiKey({ content: message, publicKey: key.publicKey, privateKey: key.privateKey });
    const login = await server.client().otpLogin({
      verificationToken: token,
      publicKey: session.publicKey,
      clientSignature: { publicKey: key.publicKey, scheme: "CLIENT_SIGNATURE_SCHEME_API_P256", message, signature },
    });
    expect(claimsOf(login.session)).toMatchObject({ user_id: carol.userId });
  });
});

describe("an OIDC identity registered on oneself from bare claims", () => {
  let server: TestServer;
  const newUser = (userName: string) => addUserWithEmail(server, userName);

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  it("an OIDC identity a user registered on themselves from bare claims logs nobody into their account", async () => {
    const victim = await newUser("victim");
    const mallory = await newUser("mallory");
    const identity = { iss: server.services.oauth.issuer, sub: "corp:victim", aud: "corp-app" };
    // Linking an identity to oneself is self-service; from bare claims it proves nothing.
    const trap = await mallory.as().createOauthProviders({
      userId: mallory.userId,
      oauthProviders: [{ providerName: "corp sso", oidcClaims: identity }],
    });
    expect(trap.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");

    const sessionKey = generateP256KeyPair();
    const tokenFor = (publicKey: string) =>
      issueOidcToken(server.services, { sub: identity.sub, aud: identity.aud, nonce: nonceFor(publicKey) }, new Date());
    const captured = await server.client().oauthLogin({ oidcToken: await tokenFor(sessionKey.publicKey), publicKey: sessionKey.publicKey });
    expect(captured.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(captured.activity.failure?.message).toContain("never proven");

    // Registered for the victim with a verified token, the identity replaces the unproven claim and logs the victim in.
    const registration = generateP256KeyPair();
    await server.client().createOauthProviders({
      userId: victim.userId,
      oauthProviders: [{ providerName: "corp sso", oidcToken: await tokenFor(registration.publicKey) }],
    });
    const login = await server.client().oauthLogin({ oidcToken: await tokenFor(sessionKey.publicKey), publicKey: sessionKey.publicKey });
    expect(claimsOf(login.session)).toMatchObject({ user_id: victim.userId });
    expect((await server.client().getOauthProviders({ userId: mallory.userId })).oauthProviders).toEqual([]);
  });
});

describe("account pre-hijacking through the auth proxy's lookups", () => {
  let server: TestServer;
  let configId: string;
  const http = () => coreClient(server, configId);
  const CLIENT_ID = "pre-hijack-client";

  beforeAll(async () => {
    server = await startTestServer();
    const enabled = await submitAsRoot(server, "enable_auth_proxy", "ACTIVITY_TYPE_ENABLE_AUTH_PROXY", {});
    expect(enabled.status).toBe("ACTIVITY_STATUS_COMPLETED");
    const updated = await submitAsRoot(server, "update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", {
      sessionExpirationSeconds: 900,
    });
    configId = updated.result.updateAuthProxyConfigResult!.configId as string;
  });
  afterAll(async () => server.close());

  /** What verify_otp answers the victim: a token for the contact, issued by the config's organization, bound to the victim's key. */
  const otpToken = async (verificationType: string, contact: string, key: KeyPair) =>
    (
      await issueVerificationToken(
        server.services.signer,
        { verificationType, contact, organizationId: server.root.organizationId, publicKey: key.publicKey },
        600,
      )
    ).token;

  const signature = async (built: { message: string; publicKey: string }, key: KeyPair) => ({
    publicKey: built.publicKey,
    scheme: "CLIENT_SIGNATURE_SCHEME_API_P256" as const,
    message: built.message,
    signature: await signWithApiKey({ content: built.message, publicKey: key.publicKey, privateKey: key.privateKey }),
  });

  for (const [channel, verificationType, filterType, field, contact] of [
    ["email", "OTP_TYPE_EMAIL", "EMAIL", "userEmail", "victim@example.com"],
    ["SMS", "OTP_TYPE_SMS", "PHONE_NUMBER", "userPhoneNumber", "+15557770001"],
  ] as const) {
    it(`an attacker who signs up first with the victim's ${channel}, unproven, does not receive the victim's OTP login`, async () => {
      const attacker = generateP256KeyPair();
      const trap = await http().proxySignupV2({
        [field]: contact,
        apiKeys: [{ apiKeyName: "attacker", publicKey: attacker.publicKey, curveType: "API_KEY_CURVE_P256" }],
        authenticators: [],
        oauthProviders: [],
      });

      // The victim logs in the way @turnkey/core's loginOrSignupWithOtp does.
      const victim = generateP256KeyPair();
      const verificationToken = await otpToken(verificationType, contact, victim);
      expect(await http().proxyGetAccount({ filterType, filterValue: contact, verificationToken })).toEqual({});
      const loginBody = async (token: string) => ({
        verificationToken: token,
        publicKey: victim.publicKey,
        clientSignature: await signature(getClientSignatureMessageForLogin({ verificationToken: token }), victim),
      });
      const captured = await coreRefusal(http().proxyOtpLoginV2(await loginBody(verificationToken)));
      expect(captured.code).toBe(5);
      expect(captured.message).not.toContain(trap.organizationId);

      // Not found, core signs the victim up with the token; the next login lands in the victim's own sub-organization.
      const signupMessage = getClientSignatureMessageForSignup({
        verificationToken,
        [channel === "email" ? "email" : "phoneNumber"]: contact,
        apiKeys: [],
        authenticators: [],
        oauthProviders: [],
      });
      const own = await http().proxySignupV2({
        [field]: contact,
        verificationToken,
        apiKeys: [],
        authenticators: [],
        oauthProviders: [],
        clientSignature: await signature(signupMessage, victim),
      });
      expect(own.organizationId).not.toBe(trap.organizationId);
      const nextToken = await otpToken(verificationType, contact, victim);
      expect(await http().proxyGetAccount({ filterType, filterValue: contact, verificationToken: nextToken })).toEqual({
        organizationId: own.organizationId,
      });
      const { session } = await http().proxyOtpLoginV2(await loginBody(nextToken));
      expect(claimsOf(session)).toMatchObject({ organization_id: own.organizationId, user_id: own.userId });
    });
  }

  it("an attacker who registers the victim's OIDC identity from bare claims does not receive the victim's OAuth login", async () => {
    const identity = { iss: server.services.oauth.issuer, sub: "google:victim-1", aud: CLIENT_ID };
    const attacker = generateP256KeyPair();
    const trap = await http().proxySignupV2({
      apiKeys: [{ apiKeyName: "attacker", publicKey: attacker.publicKey, curveType: "API_KEY_CURVE_P256" }],
      authenticators: [],
      oauthProviders: [{ providerName: "google", oidcClaims: identity }],
    });

    const victim = generateP256KeyPair();
    const oidcToken = await issueOidcToken(
      server.services,
      { sub: identity.sub, aud: CLIENT_ID, nonce: nonceFor(victim.publicKey) },
      new Date(),
    );
    // @turnkey/core's completeOauth: look the account up by the token (and, in the wallet kit, by its claims).
    expect(await http().proxyGetAccount({ filterType: "OIDC_TOKEN", filterValue: oidcToken })).toEqual({});
    expect(await http().proxyGetAccount({ filterType: "OIDC_CLAIMS", filterValue: JSON.stringify(identity) })).toEqual({});
    const captured = await coreRefusal(http().proxyOAuthLogin({ oidcToken, publicKey: victim.publicKey }));
    expect(captured.code).toBe(5);

    // The victim's own signup with the verified token, and its login naming the new organization (the session
    // key's first stamp proves the identity), is found; the victim's next login lands there.
    const own = await http().proxySignupV2({ apiKeys: [], authenticators: [], oauthProviders: [{ providerName: "google", oidcToken }] });
    expect(own.organizationId).not.toBe(trap.organizationId);
    await http().proxyOAuthLogin({ oidcToken, publicKey: victim.publicKey, organizationId: own.organizationId });
    await server.client({ apiPublicKey: victim.publicKey, apiPrivateKey: victim.privateKey }, own.organizationId).getWhoami({});
    expect(await http().proxyGetAccount({ filterType: "OIDC_TOKEN", filterValue: oidcToken })).toEqual({
      organizationId: own.organizationId,
    });
    const nextKey = generateP256KeyPair();
    const nextToken = await issueOidcToken(
      server.services,
      { sub: identity.sub, aud: CLIENT_ID, nonce: nonceFor(nextKey.publicKey) },
      new Date(),
    );
    const { session } = await http().proxyOAuthLogin({ oidcToken: nextToken, publicKey: nextKey.publicKey });
    expect(claimsOf(session)).toMatchObject({ organization_id: own.organizationId, user_id: own.userId });
  });

  it("an attacker who registers the victim's wallet public key does not capture the victim's wallet login lookup", async () => {
    const victimWallet = generateP256KeyPair();
    const attacker = generateP256KeyPair();
    await http().proxySignupV2({
      apiKeys: [
        { apiKeyName: "victim's wallet", publicKey: victimWallet.publicKey, curveType: "API_KEY_CURVE_P256" },
        { apiKeyName: "attacker", publicKey: attacker.publicKey, curveType: "API_KEY_CURVE_P256" },
      ],
      authenticators: [],
      oauthProviders: [],
    });
    // @turnkey/core's loginOrSignupWithWallet looks the account up by the wallet's key: no key proven by a stamp matches.
    expect(await http().proxyGetAccount({ filterType: "PUBLIC_KEY", filterValue: victimWallet.publicKey })).toEqual({});

    const own = await http().proxySignupV2({
      apiKeys: [{ apiKeyName: "wallet", publicKey: victimWallet.publicKey, curveType: "API_KEY_CURVE_P256" }],
      authenticators: [],
      oauthProviders: [],
    });
    const asVictim = server.client({ apiPublicKey: victimWallet.publicKey, apiPrivateKey: victimWallet.privateKey }, own.organizationId);
    await asVictim.stampLogin({ publicKey: generateP256KeyPair().publicKey });
    expect(await http().proxyGetAccount({ filterType: "PUBLIC_KEY", filterValue: victimWallet.publicKey })).toEqual({
      organizationId: own.organizationId,
    });
  });
});
