import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { encryptOauth2ClientSecret, generateP256KeyPair } from "@turnkey/crypto";
import type { OAuth2Server } from "oauth2-mock-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimsOf, coreClient, coreRefusal, submitAsRoot } from "../helpers/auth-proxy.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { authorizeWithPkce } from "../helpers/oauth-authorization.js";
import { startOidcProvider } from "../helpers/oidc-provider.js";

/**
 * OAuth through the auth proxy: a real OAuth 2.0 / OIDC server on loopback (oauth2-mock-server) is both an
 * OIDC issuer (a "Google") and X's token and user-info endpoints; the client is @turnkey/core's own.
 */
const CLIENT_ID = "proxy-test-client";
const REDIRECT_URI = "https://app.example.com/oauth/callback";
const nonceFor = (publicKey: string) => bytesToHex(sha256(new TextEncoder().encode(publicKey)));

describe("OAuth signup and login through the auth proxy with @turnkey/core's client", () => {
  let provider: OAuth2Server;
  let issuer: string;
  let server: TestServer;

  async function submit(operation: string, type: string, parameters: unknown) {
    const activity = await submitAsRoot(server, operation, type, parameters);
    expect(activity.status, JSON.stringify(activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    return activity;
  }

  let configId: string;
  const http = () => coreClient(server, configId);

  const idToken = (claims: Record<string, unknown>) =>
    provider.issuer.buildToken({ scopesOrTransform: (_header, payload) => Object.assign(payload, { aud: CLIENT_ID }, claims) });

  beforeAll(async () => {
    ({ provider, issuer } = await startOidcProvider());
    provider.service.addRoute("GET", "/2/users/me", (_req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ data: { id: "424242", username: "xuser" } }));
    });
    server = await startTestServer({
      env: { OAUTH2_X_TOKEN_URL: `${issuer}/token`, OAUTH2_X_USERINFO_URL: `${issuer}/2/users/me`, OIDC_ISSUERS: issuer },
    });
    await submit("enable_auth_proxy", "ACTIVITY_TYPE_ENABLE_AUTH_PROXY", {});
    const updated = await submit("update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", {
      walletKitSettings: {
        enabledSocialProviders: ["google", "x"],
        oauthClientIds: { google: CLIENT_ID, x: CLIENT_ID, discord: "discord-client" },
        oauthRedirectUrl: REDIRECT_URI,
      },
    });
    configId = updated.result.updateAuthProxyConfigResult!.configId as string;
    const keys = (await (await fetch(`${server.url}/public/v1/discovery/keys`)).json()) as { encryptionPublicKey: string };
    const created = await server.client().createOauth2Credential({
      provider: "OAUTH2_PROVIDER_X",
      clientId: CLIENT_ID,
      encryptedClientSecret: await encryptOauth2ClientSecret("x-client-secret", keys.encryptionPublicKey),
    });
    expect(created.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
  });
  afterAll(async () => {
    await server?.close();
    await provider?.stop();
  });

  it("signs up with an OIDC token, logs in naming the organization, is then found by the identity and logs in with oauth_login without naming it", async () => {
    const registration = await idToken({ sub: "google-user-1" });
    const signedUp = await http().proxySignupV2({
      userName: "oidc user",
      apiKeys: [],
      authenticators: [],
      oauthProviders: [{ providerName: "google", oidcToken: registration }],
    });
    // The signup alone proves nothing (anyone may hold a token): nobody who holds the key its nonce binds has signed.
    expect(await http().proxyGetAccount({ filterType: "OIDC_TOKEN", filterValue: registration })).toEqual({});

    // The login that follows the signup names its organization; the session key's first stamp proves the identity.
    const firstKey = generateP256KeyPair();
    const first = await http().proxyOAuthLogin({
      oidcToken: await idToken({ sub: "google-user-1", nonce: nonceFor(firstKey.publicKey) }),
      publicKey: firstKey.publicKey,
      organizationId: signedUp.organizationId,
    });
    expect(claimsOf(first.session)).toMatchObject({ organization_id: signedUp.organizationId, user_id: signedUp.userId });
    const firstClient = server.client({ apiPublicKey: firstKey.publicKey, apiPrivateKey: firstKey.privateKey }, signedUp.organizationId);
    expect((await firstClient.getWhoami({})).userId).toBe(signedUp.userId);
    expect(await http().proxyGetAccount({ filterType: "OIDC_TOKEN", filterValue: registration })).toEqual({
      organizationId: signedUp.organizationId,
    });

    const sessionKey = generateP256KeyPair();
    const { session } = await http().proxyOAuthLogin({
      oidcToken: await idToken({ sub: "google-user-1", nonce: nonceFor(sessionKey.publicKey) }),
      publicKey: sessionKey.publicKey,
    });
    expect(claimsOf(session)).toMatchObject({
      organization_id: signedUp.organizationId,
      user_id: signedUp.userId,
      public_key: sessionKey.publicKey,
    });
    const loggedIn = server.client({ apiPublicKey: sessionKey.publicKey, apiPrivateKey: sessionKey.privateKey }, signedUp.organizationId);
    expect((await loggedIn.getWhoami({})).userId).toBe(signedUp.userId);

    const wrongNonce = await coreRefusal(
      http().proxyOAuthLogin({
        oidcToken: await idToken({ sub: "google-user-1", nonce: "00" }),
        publicKey: generateP256KeyPair().publicKey,
      }),
    );
    expect(wrongNonce.code).toBe(3);
    const stranger = await coreRefusal(
      http().proxyOAuthLogin({
        oidcToken: await idToken({ sub: "nobody", nonce: nonceFor(sessionKey.publicKey) }),
        publicKey: sessionKey.publicKey,
      }),
    );
    expect(stranger.code).toBe(5);
  });

  it("exchanges an X authorization code (PKCE) with the organization's credential for that client id, then signs up and logs in with Strongroom's OIDC token", async () => {
    const { code: authCode, codeVerifier: verifier } = await authorizeWithPkce(issuer, { clientId: CLIENT_ID, redirectUri: REDIRECT_URI });
    const sessionKey = generateP256KeyPair();
    const exchange = {
      provider: "OAUTH2_PROVIDER_X" as const,
      authCode,
      redirectUri: REDIRECT_URI,
      codeVerifier: verifier,
      nonce: nonceFor(sessionKey.publicKey),
      clientId: CLIENT_ID,
    };

    const notOurs = await coreRefusal(http().proxyOAuth2Authenticate({ ...exchange, clientId: "someone-elses-client" }));
    expect(notOurs.code).toBe(7);
    expect(notOurs.message).toContain("someone-elses-client");
    const noCredential = await coreRefusal(
      http().proxyOAuth2Authenticate({ ...exchange, provider: "OAUTH2_PROVIDER_DISCORD", clientId: "discord-client" }),
    );
    expect(noCredential.code).toBe(5);

    const { oidcToken } = await http().proxyOAuth2Authenticate(exchange);
    expect(claimsOf(oidcToken)).toMatchObject({ sub: "x:424242", aud: CLIENT_ID, nonce: nonceFor(sessionKey.publicKey) });
    const signedUp = await http().proxySignupV2({
      userName: "x user",
      apiKeys: [],
      authenticators: [],
      oauthProviders: [{ providerName: "x", oidcToken }],
    });
    // The login right after the signup names the new organization; the token that signed up logs in there once.
    const { session } = await http().proxyOAuthLogin({
      oidcToken,
      publicKey: sessionKey.publicKey,
      organizationId: signedUp.organizationId,
    });
    expect(claimsOf(session)).toMatchObject({ organization_id: signedUp.organizationId, user_id: signedUp.userId });
  });

  it("with verificationTokenRequiredForGetAccountPii, an OIDC token whose verified email is the contact may look the account up", async () => {
    await submit("update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", { verificationTokenRequiredForGetAccountPii: true });
    const registration = await idToken({ sub: "olga", email: "olga@example.com", email_verified: true });
    const signedUp = await http().proxySignupV2({
      userName: "olga",
      userEmail: "olga@example.com",
      apiKeys: [],
      authenticators: [],
      oauthProviders: [{ providerName: "google", oidcToken: registration }],
    });
    expect((await coreRefusal(http().proxyGetAccount({ filterType: "EMAIL", filterValue: "olga@example.com" }))).code).toBe(7);
    // Her first login, naming the organization, and her session key's first stamp prove the identity and the email.
    const sessionKey = generateP256KeyPair();
    await http().proxyOAuthLogin({
      oidcToken: await idToken({ sub: "olga", email: "olga@example.com", email_verified: true, nonce: nonceFor(sessionKey.publicKey) }),
      publicKey: sessionKey.publicKey,
      organizationId: signedUp.organizationId,
    });
    await server
      .client({ apiPublicKey: sessionKey.publicKey, apiPrivateKey: sessionKey.privateKey }, signedUp.organizationId)
      .getWhoami({});
    expect(await http().proxyGetAccount({ filterType: "EMAIL", filterValue: "olga@example.com", oidcToken: registration })).toEqual({
      organizationId: signedUp.organizationId,
    });
    const otherEmail = await coreRefusal(
      http().proxyGetAccount({
        filterType: "EMAIL",
        filterValue: "olga@example.com",
        oidcToken: await idToken({ sub: "olga", email: "mallory@example.com" }),
      }),
    );
    expect(otherEmail.code).toBe(3);
    await submit("update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", {
      verificationTokenRequiredForGetAccountPii: false,
    });
  });
});
