import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { StamperType, TurnkeyClient } from "@turnkey/core";
import { AttestedStamper } from "@turnkey/core/dist/__stampers__/attested/base.js";
import { generateP256KeyPair } from "@turnkey/crypto";
import type { OAuth2Server } from "oauth2-mock-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimsOf, coreClient, coreRefusal, submitAsRoot } from "../helpers/auth-proxy.js";
import { rowCounts } from "../helpers/row-counts.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { startOidcProvider } from "../helpers/oidc-provider.js";

type KeyPair = { publicKey: string; privateKey: string };
const CLIENT_ID = "oidc-proofs-client";
const nonceFor = (publicKey: string) => bytesToHex(sha256(new TextEncoder().encode(publicKey)));
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/**
 * What an OIDC token proves, and for whom, with a real OIDC provider on loopback (oauth2-mock-server, an
 * OIDC_ISSUERS issuer), @turnkey/core's clients and the auth proxy: a token proves once; a signup proves no
 * identity until the key its token's nonce binds signs; lookups verify tokens and skip expired keys; refusals
 * to anonymous callers name nobody.
 */
describe("OIDC tokens as proofs", () => {
  let provider: OAuth2Server;
  let server: TestServer;
  let configId: string;
  /** The server's clock runs this far ahead of the real one (the expired-key test moves it). */
  let clockOffsetMs = 0;

  const proxy = () => coreClient(server, configId);
  const idToken = (claims: Record<string, unknown>) =>
    provider.issuer.buildToken({ scopesOrTransform: (_header, payload) => Object.assign(payload, { aud: CLIENT_ID }, claims) });

  /** Core's client whose attested stamper holds `key`, set to attest with the OIDC token (loginWithOauth does this). */
  async function attested(key: KeyPair, oidcToken: string) {
    const stamper = new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey });
    const client = new TurnkeyClient(
      {
        apiBaseUrl: server.url,
        authProxyUrl: server.authProxyUrl,
        authProxyConfigId: configId,
        organizationId: server.root.organizationId,
      },
      stamper as never,
      undefined,
      new AttestedStamper(stamper as never),
    );
    await client.overrideAttestedStamper({ oidcToken, publicKey: key.publicKey });
    return client.createHttpClient();
  }

  /** @turnkey/core's loginWithOauth: stamp_login stamped by the key, attested by the token, naming the organization if given. */
  async function loginWithOauth(oidcToken: string, key: KeyPair, organizationId?: string) {
    const http = await attested(key, oidcToken);
    return http.stampLogin(
      { publicKey: key.publicKey, expirationSeconds: "900", invalidateExisting: false, ...(organizationId ? { organizationId } : {}) },
      StamperType.Attested,
    );
  }

  /** A token of the victim's Google identity, bound to a key the victim holds: what the provider gives the victim's browser. */
  async function victimToken(sub: string) {
    const key = generateP256KeyPair();
    return { key, token: await idToken({ sub, nonce: nonceFor(key.publicKey) }) };
  }

  beforeAll(async () => {
    let issuer: string;
    ({ provider, issuer } = await startOidcProvider());
    server = await startTestServer({ env: { OIDC_ISSUERS: issuer }, clock: () => new Date(Date.now() + clockOffsetMs) });
    await submitAsRoot(server, "enable_auth_proxy", "ACTIVITY_TYPE_ENABLE_AUTH_PROXY", {});
    const updated = await submitAsRoot(server, "update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", {
      walletKitSettings: {
        enabledSocialProviders: ["google"],
        oauthClientIds: { google: CLIENT_ID },
        oauthRedirectUrl: "https://app.example/cb",
      },
    });
    configId = updated.result.updateAuthProxyConfigResult!.configId as string;
  });
  afterAll(async () => {
    await server?.close();
    await provider?.stop();
  });

  it("one OIDC token proves one MFA OAUTH step: its second approval is 401 and that activity still waits", async () => {
    const registration = await idToken({ sub: "root-google", nonce: nonceFor(generateP256KeyPair().publicKey) });
    const linked = await submitAsRoot(server, "create_oauth_providers", "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2", {
      userId: server.root.userId,
      oauthProviders: [{ providerName: "google", oidcToken: registration }],
    });
    expect(linked.status).toBe("ACTIVITY_STATUS_COMPLETED");
    const mfa = await submitAsRoot(server, "create_mfa_policy", "ACTIVITY_TYPE_CREATE_MFA_POLICY", {
      userId: server.root.userId,
      mfaPolicyName: "user tags need Google",
      condition: "activity.type == 'ACTIVITY_TYPE_CREATE_USER_TAG'",
      requiredAuthenticationMethods: [{ any: [{ type: "AUTHENTICATION_TYPE_API_KEY" }] }, { any: [{ type: "AUTHENTICATION_TYPE_OAUTH" }] }],
      order: 0,
    });
    expect(mfa.status).toBe("ACTIVITY_STATUS_COMPLETED");
    try {
      const tag = (name: string) =>
        submitAsRoot(server, "create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", { userTagName: name, userIds: [] }) as Promise<
          Awaited<ReturnType<typeof submitAsRoot>> & { id: string; fingerprint: string }
        >;
      const first = await tag("first");
      const second = await tag("second");
      expect([first.status, second.status]).toEqual(["ACTIVITY_STATUS_AUTHENTICATORS_NEEDED", "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED"]);

      const key = generateP256KeyPair();
      const stepUp = await idToken({ sub: "root-google", nonce: nonceFor(key.publicKey) });
      const http = await attested(key, stepUp);
      const approved = await http.approveActivity({ fingerprint: first.fingerprint }, StamperType.Attested);
      expect(approved.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");

      const replayed = await coreRefusal(http.approveActivity({ fingerprint: second.fingerprint }, StamperType.Attested));
      expect(replayed.code).toBe(16);
      expect(replayed.message).toContain("already used");
      const { activity } = await server.client().getActivity({ activityId: second.id });
      expect(activity.status).toBe("ACTIVITY_STATUS_AUTHENTICATORS_NEEDED");
      expect(activity.votes).toHaveLength(1);

      // Nor does a token that logged in approve afterwards (or the reverse): one token, one proof.
      const loginKey = generateP256KeyPair();
      const loginToken = await idToken({ sub: "root-google", nonce: nonceFor(loginKey.publicKey) });
      await loginWithOauth(loginToken, loginKey, server.root.organizationId);
      const afterLogin = await coreRefusal(
        (await attested(loginKey, loginToken)).approveActivity({ fingerprint: second.fingerprint }, StamperType.Attested),
      );
      expect(afterLogin.code).toBe(16);
    } finally {
      const { mfaPolicies } = (await server.client().getMfaPolicies({ userId: server.root.userId })) as {
        mfaPolicies: Array<{ mfaPolicyId: string }>;
      };
      for (const policy of mfaPolicies) {
        await submitAsRoot(server, "delete_mfa_policy", "ACTIVITY_TYPE_DELETE_MFA_POLICY", {
          userId: server.root.userId,
          mfaPolicyId: policy.mfaPolicyId,
        });
      }
    }
  });

  it("an OIDC login (oauth_login) happens once per token", async () => {
    const { key, token } = await victimToken("returning-user");
    const signedUp = await proxy().proxySignupV2({
      apiKeys: [],
      authenticators: [],
      oauthProviders: [{ providerName: "google", oidcToken: token }],
    });
    // signUpWithOauth: the token that signed up logs in once to that organization.
    const { session } = await proxy().proxyOAuthLogin({
      oidcToken: token,
      publicKey: key.publicKey,
      organizationId: signedUp.organizationId,
    });
    expect(claimsOf(session)).toMatchObject({ organization_id: signedUp.organizationId });
    const again = await coreRefusal(
      proxy().proxyOAuthLogin({ oidcToken: token, publicKey: key.publicKey, organizationId: signedUp.organizationId }),
    );
    expect(again.code).toBe(9);
    expect(again.message).toContain("already used");
    const attestedAgain = await coreRefusal(loginWithOauth(token, key, signedUp.organizationId));
    expect(attestedAgain.code).toBe(16);
  });

  it("a signup with someone else's ID token captures none of their later OAuth logins", async () => {
    const subject = "victim-google";
    // The attacker has a token of the victim's identity, bound to a key only the victim holds, and signs up first with it.
    const stolen = await victimToken(subject);
    const attackerKey = generateP256KeyPair();
    const trap = await proxy().proxySignupV2({
      apiKeys: [{ apiKeyName: "attacker", publicKey: attackerKey.publicKey, curveType: "API_KEY_CURVE_P256" }],
      authenticators: [],
      oauthProviders: [{ providerName: "google", oidcToken: stolen.token }],
    });
    // Logging in with it through the proxy gives a session to a key the attacker does not hold, and proves nothing.
    await proxy().proxyOAuthLogin({ oidcToken: stolen.token, publicKey: stolen.key.publicKey, organizationId: trap.organizationId });
    expect(await proxy().proxyGetAccount({ filterType: "OIDC_TOKEN", filterValue: stolen.token })).toEqual({});

    // The victim's completeOauth: nothing found, so signUpWithOauth, then loginWithOauth naming the new organization.
    const first = await victimToken(subject);
    expect(await proxy().proxyGetAccount({ filterType: "OIDC_TOKEN", filterValue: first.token })).toEqual({});
    const own = await proxy().proxySignupV2({
      apiKeys: [],
      authenticators: [],
      oauthProviders: [{ providerName: "google", oidcToken: first.token }],
    });
    expect(own.organizationId).not.toBe(trap.organizationId);
    const signupLogin = await loginWithOauth(first.token, first.key, own.organizationId);
    expect(claimsOf(signupLogin.session)).toMatchObject({ organization_id: own.organizationId, user_id: own.userId });

    // Her later logins without an organization, both ways core's clients do them, land in her own sub-organization.
    const later = await victimToken(subject);
    expect(await proxy().proxyGetAccount({ filterType: "OIDC_TOKEN", filterValue: later.token })).toEqual({
      organizationId: own.organizationId,
    });
    const { session } = await proxy().proxyOAuthLogin({ oidcToken: later.token, publicKey: later.key.publicKey });
    expect(claimsOf(session)).toMatchObject({ organization_id: own.organizationId, user_id: own.userId });
    const viaParent = await victimToken(subject);
    const attestedLogin = await loginWithOauth(viaParent.token, viaParent.key);
    expect(claimsOf(attestedLogin.session)).toMatchObject({ organization_id: own.organizationId, user_id: own.userId });

    // A token the victim already used registers nothing anywhere: refused, and nothing is written.
    const before = await rowCounts(server.services.db);
    const replay = await coreRefusal(
      proxy().proxySignupV2({
        apiKeys: [{ apiKeyName: "attacker", publicKey: generateP256KeyPair().publicKey, curveType: "API_KEY_CURVE_P256" }],
        authenticators: [],
        oauthProviders: [{ providerName: "google", oidcToken: later.token }],
      }),
    );
    expect(replay.code).toBe(9);
    expect(replay.message).toContain("already used");
    const after = await rowCounts(server.services.db);
    expect({ organizations: after.organizations, users: after.users, oauth_providers: after.oauth_providers }).toEqual({
      organizations: before.organizations,
      users: before.users,
      oauth_providers: before.oauth_providers,
    });
  });

  it("an attacker who adds someone else's used token to their own user through create_oauth_providers is refused", async () => {
    const { key, token } = await victimToken("victim-2");
    const own = await proxy().proxySignupV2({
      apiKeys: [],
      authenticators: [],
      oauthProviders: [{ providerName: "google", oidcToken: token }],
    });
    await loginWithOauth(token, key, own.organizationId);

    const attackerKey = generateP256KeyPair();
    const trap = await proxy().proxySignupV2({
      apiKeys: [{ apiKeyName: "attacker", publicKey: attackerKey.publicKey, curveType: "API_KEY_CURVE_P256" }],
      authenticators: [],
      oauthProviders: [],
    });
    const attacker = server.client({ apiPublicKey: attackerKey.publicKey, apiPrivateKey: attackerKey.privateKey }, trap.organizationId);
    const { activity } = await attacker.createOauthProviders({
      userId: trap.userId,
      oauthProviders: [{ providerName: "google", oidcToken: token }],
    });
    expect(activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(JSON.stringify(activity.failure)).toContain("already used");
    const later = await victimToken("victim-2");
    expect(await proxy().proxyGetAccount({ filterType: "OIDC_TOKEN", filterValue: later.token })).toEqual({
      organizationId: own.organizationId,
    });
  });

  it("the OIDC_TOKEN lookup verifies the token: one with a zeroed signature finds nothing", async () => {
    const { key, token } = await victimToken("zero-signature");
    const own = await proxy().proxySignupV2({
      apiKeys: [],
      authenticators: [],
      oauthProviders: [{ providerName: "google", oidcToken: token }],
    });
    await loginWithOauth(token, key, own.organizationId);
    expect(await proxy().proxyGetAccount({ filterType: "OIDC_TOKEN", filterValue: token })).toEqual({ organizationId: own.organizationId });

    const [header, payload, signature] = token.split(".") as [string, string, string];
    const zeroed = `${header}.${payload}.${Buffer.alloc(Buffer.from(signature, "base64url").length).toString("base64url")}`;
    const refused = await coreRefusal(proxy().proxyGetAccount({ filterType: "OIDC_TOKEN", filterValue: zeroed }));
    expect(refused.code).toBe(3);
    expect(refused.message).toContain("signature does not verify");
    const login = await coreRefusal(proxy().proxyOAuthLogin({ oidcToken: zeroed, publicKey: key.publicKey }));
    expect(login.code).toBe(3);
  });

  it("a refusal to an anonymous caller names no user or organization the caller did not send", async () => {
    // Mallory, a member of the organization, registers an identity on herself from bare claims: it logs nobody in.
    const malloryKey = generateP256KeyPair();
    const { userIds } = await server.client().createUsers({
      users: [
        {
          userName: "mallory",
          apiKeys: [{ apiKeyName: "mallory", publicKey: malloryKey.publicKey, curveType: "API_KEY_CURVE_P256" }],
          authenticators: [],
          oauthProviders: [],
          userTags: [],
        },
      ],
    });
    const mallory = { userId: userIds[0]!, organizationId: server.root.organizationId };
    const client = server.client({ apiPublicKey: malloryKey.publicKey, apiPrivateKey: malloryKey.privateKey });
    const claims = { iss: `http://127.0.0.1:${provider.address().port}`, sub: "claimed", aud: CLIENT_ID };
    const added = await client.createOauthProviders({
      userId: mallory.userId,
      oauthProviders: [{ providerName: "google", oidcClaims: claims }],
    });
    expect(added.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");

    const { key, token } = await victimToken("claimed");
    const refused = await coreRefusal(
      proxy().proxyOAuthLogin({ oidcToken: token, publicKey: key.publicKey, organizationId: mallory.organizationId }),
    );
    expect(refused.code).toBe(5);
    expect(refused.message).toContain("bare claims");
    expect(refused.message).not.toContain(mallory.userId);
    const named = [...refused.message.matchAll(UUID)].map(([id]) => id);
    expect(named.every((id) => id === mallory.organizationId)).toBe(true);
  });

  it("a PUBLIC_KEY lookup does not find an expired API key", async () => {
    const walletKey = generateP256KeyPair();
    const signedUp = await proxy().proxySignupV2({
      apiKeys: [{ apiKeyName: "wallet", publicKey: walletKey.publicKey, curveType: "API_KEY_CURVE_P256", expirationSeconds: "900" }],
      authenticators: [],
      oauthProviders: [],
    });
    // Its first accepted stamp proves the key.
    await server.client({ apiPublicKey: walletKey.publicKey, apiPrivateKey: walletKey.privateKey }, signedUp.organizationId).getWhoami({});
    const lookup = () => proxy().proxyGetAccount({ filterType: "PUBLIC_KEY", filterValue: walletKey.publicKey });
    expect(await lookup()).toEqual({ organizationId: signedUp.organizationId });
    clockOffsetMs = 901_000;
    try {
      expect(await lookup()).toEqual({});
    } finally {
      clockOffsetMs = 0;
    }
  });
});
