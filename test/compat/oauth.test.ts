import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { decryptCredentialBundle, encryptOauth2ClientSecret, generateP256KeyPair, verifySessionJwtSignature } from "@turnkey/crypto";
import { SignJWT, createRemoteJWKSet, decodeJwt, generateKeyPair, jwtVerify } from "jose";
import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { Events, OAuth2Server } from "oauth2-mock-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refusal } from "../helpers/refusal.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { authorizeWithPkce } from "../helpers/oauth-authorization.js";
import { startOidcProvider } from "../helpers/oidc-provider.js";

/**
 * OAuth 2.0 and OIDC end to end: a real OAuth 2.0 / OIDC server on loopback (oauth2-mock-server) plays
 * X, Discord and an OIDC issuer; Strongroom is driven through the unchanged @turnkey/sdk-server.
 */
const CLIENT_ID = "strongroom-test-client";
const CLIENT_SECRET = `client-secret-${randomBytes(12).toString("hex")}`;
const REDIRECT_URI = "https://app.example/oauth/callback";
const X_USER_ID = "123456789";
const DISCORD_USER_ID = "80351110224678912";

const loginNonce = (publicKey: string) => bytesToHex(sha256(new TextEncoder().encode(publicKey)));

interface TokenRequest {
  authorization: string | undefined;
  body: Record<string, string>;
}

describe("OAuth 2.0 and OIDC through @turnkey/sdk-server", () => {
  let provider: OAuth2Server;
  let server: TestServer;
  let issuer: string;
  const tokenRequests: TokenRequest[] = [];
  const bearerTokensSeen: string[] = [];
  const logLines: string[] = [];
  let slowDiscordUserInfo = false;

  beforeAll(async () => {
    ({ provider, issuer } = await startOidcProvider());
    // What the token endpoint receives (PKCE itself is checked by the mock server: a wrong verifier is a 400).
    provider.service.on(Events.BeforeResponse, (_response, req) => {
      tokenRequests.push({ authorization: req.headers.authorization, body: req.body as Record<string, string> });
    });
    // X's and Discord's user-info endpoints, answering for the mock's own access tokens.
    const userInfo =
      (body: () => unknown) =>
      async (req: { headers: Record<string, string | string[] | undefined> }, res: import("node:http").ServerResponse) => {
        const bearer = String(req.headers.authorization ?? "").replace(/^Bearer /, "");
        let valid = false;
        try {
          await jwtVerify(bearer, createRemoteJWKSet(new URL(`${issuer}/jwks`)), { issuer });
          valid = true;
        } catch {
          valid = false;
        }
        res.setHeader("content-type", "application/json");
        if (!valid) {
          res.statusCode = 401;
          res.end(JSON.stringify({ title: "Unauthorized", detail: "Unauthorized" }));
          return;
        }
        bearerTokensSeen.push(bearer);
        res.end(JSON.stringify(body()));
      };
    provider.service.addRoute(
      "GET",
      "/2/users/me",
      userInfo(() => ({ data: { id: X_USER_ID, name: "X user", username: "xuser" } })),
    );
    provider.service.addRoute("GET", "/api/users/@me", async (req, res) => {
      // Slow: no answer at all, until Strongroom gives up and hangs up.
      if (slowDiscordUserInfo) {
        await new Promise((resolve) => res.once("close", resolve));
        return;
      }
      await userInfo(() => ({ id: DISCORD_USER_ID, username: "discorduser" }))(req, res);
    });

    server = await startTestServer({
      env: {
        LOG_LEVEL: "debug",
        OAUTH2_X_TOKEN_URL: `${issuer}/token`,
        OAUTH2_X_USERINFO_URL: `${issuer}/2/users/me`,
        OAUTH2_DISCORD_TOKEN_URL: `${issuer}/token`,
        OAUTH2_DISCORD_USERINFO_URL: `${issuer}/api/users/@me`,
        OAUTH2_TIMEOUT_MS: "1000",
        OIDC_ISSUERS: `${issuer}/`,
      },
      logStream: new Writable({
        write(chunk, _encoding, done) {
          logLines.push(String(chunk));
          done();
        },
      }),
    });
  });
  afterAll(async () => {
    await server?.close();
    await provider?.stop();
  });

  async function encryptionPublicKey(): Promise<string> {
    const keys = (await (await fetch(`${server.url}/public/v1/discovery/keys`)).json()) as { encryptionPublicKey: string };
    return keys.encryptionPublicKey;
  }

  async function createCredential(
    provider: "OAUTH2_PROVIDER_X" | "OAUTH2_PROVIDER_DISCORD",
    secret = CLIENT_SECRET,
    clientId = CLIENT_ID,
  ): Promise<string> {
    const encryptedClientSecret = await encryptOauth2ClientSecret(secret, await encryptionPublicKey());
    const created = await server.client().createOauth2Credential({ provider, clientId, encryptedClientSecret });
    expect(created.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    return created.oauth2CredentialId;
  }

  /** The user's part of an authorization-code + PKCE flow: the provider's authorize endpoint redirects with a code. */
  async function authorize(options: { nonce?: string } = {}): Promise<{ code: string; verifier: string }> {
    const { status, location, code, codeVerifier } = await authorizeWithPkce(issuer, {
      clientId: CLIENT_ID,
      redirectUri: REDIRECT_URI,
      scope: "openid users.read",
      state: "some-state",
      nonce: options.nonce,
    });
    expect(status).toBe(302);
    expect(location.origin + location.pathname).toBe(REDIRECT_URI);
    return { code, verifier: codeVerifier };
  }

  type ProviderParams =
    { providerName: string; oidcToken: string } | { providerName: string; oidcClaims: { iss: string; sub: string; aud: string } };

  async function subOrganizationWithUser(name: string, oauthProviders: ProviderParams[]) {
    const created = await server.client().createSubOrganization({
      subOrganizationName: name,
      rootQuorumThreshold: 1,
      rootUsers: [{ userName: `${name} user`, apiKeys: [], authenticators: [], oauthProviders }],
    });
    expect(created.activity.status, JSON.stringify(created.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    return { organizationId: created.subOrganizationId, userId: created.rootUserIds![0]! };
  }

  it("OAuth 2.0 credentials: created with a secret encrypted to the discovered encryption key, read, listed, updated and deleted; a secret that does not open is a clear 400", async () => {
    const id = await createCredential("OAUTH2_PROVIDER_X");
    const { oauth2Credential } = await server.client().getOauth2Credential({ oauth2CredentialId: id });
    expect(oauth2Credential).toMatchObject({
      oauth2CredentialId: id,
      organizationId: server.root.organizationId,
      provider: "OAUTH2_PROVIDER_X",
      clientId: CLIENT_ID,
    });
    expect(oauth2Credential.encryptedClientSecret).toMatch(/^[0-9a-f]+$/);
    expect(JSON.stringify(oauth2Credential)).not.toContain(CLIENT_SECRET);

    const rotated = `rotated-${CLIENT_SECRET}`;
    const updated = await server.client().updateOauth2Credential({
      oauth2CredentialId: id,
      provider: "OAUTH2_PROVIDER_DISCORD",
      clientId: "discord-client",
      encryptedClientSecret: await encryptOauth2ClientSecret(rotated, await encryptionPublicKey()),
    });
    expect(updated.oauth2CredentialId).toBe(id);
    const listed = await server.client().listOauth2Credentials({});
    expect(listed.oauth2Credentials.find((c) => c.oauth2CredentialId === id)).toMatchObject({
      provider: "OAUTH2_PROVIDER_DISCORD",
      clientId: "discord-client",
    });

    // A bad update changes nothing.
    const badUpdate = await refusal(
      server.client().updateOauth2Credential({
        oauth2CredentialId: id,
        provider: "OAUTH2_PROVIDER_X",
        clientId: "changed",
        encryptedClientSecret: "00".repeat(120),
      }),
    );
    expect(badUpdate.code).toBe(3);
    expect((await server.client().getOauth2Credential({ oauth2CredentialId: id })).oauth2Credential).toMatchObject({
      provider: "OAUTH2_PROVIDER_DISCORD",
      clientId: "discord-client",
    });

    expect((await server.client().deleteOauth2Credential({ oauth2CredentialId: id })).oauth2CredentialId).toBe(id);
    const deletedAgain = await server.client().deleteOauth2Credential({ oauth2CredentialId: id });
    expect(deletedAgain.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(deletedAgain.activity.failure?.message).toContain(
      `no OAuth 2.0 credential "${id}" in organization ${server.root.organizationId}`,
    );
    expect((await server.client().listOauth2Credentials({})).oauth2Credentials.map((c) => c.oauth2CredentialId)).not.toContain(id);
    const gone = await refusal(server.client().getOauth2Credential({ oauth2CredentialId: id }));
    expect(gone.message).toContain(`no OAuth 2.0 credential "${id}"`);

    // Encrypted to Turnkey's production TLS-fetcher key (the SDK's default), not to Strongroom's.
    const foreign = await encryptOauth2ClientSecret(CLIENT_SECRET);
    const refused = await refusal(
      server.client().createOauth2Credential({ provider: "OAUTH2_PROVIDER_X", clientId: CLIENT_ID, encryptedClientSecret: foreign }),
    );
    expect(refused.code).toBe(3);
    expect(refused.message).toContain("encryptedClientSecret: the secret could not be decrypted");
    expect(refused.message).toContain(await encryptionPublicKey());
    const badProvider = await refusal(
      server.client().createOauth2Credential({
        provider: "OAUTH2_PROVIDER_GITHUB" as "OAUTH2_PROVIDER_X",
        clientId: CLIENT_ID,
        encryptedClientSecret: await encryptOauth2ClientSecret("s", await encryptionPublicKey()),
      }),
    );
    expect(badProvider.code).toBe(3);
  });

  it("oauth2_authenticate exchanges a PKCE code with X, and Strongroom's OIDC token (with the encrypted bearer token) logs a sub-organization user in", async () => {
    const credentialId = await createCredential("OAUTH2_PROVIDER_X");
    const { code, verifier } = await authorize();
    const sessionKey = generateP256KeyPair();
    const bearerTarget = generateP256KeyPair();
    const nonce = loginNonce(sessionKey.publicKey);
    tokenRequests.length = 0;
    const authenticated = await server.client().oauth2Authenticate({
      oauth2CredentialId: credentialId,
      authCode: code,
      redirectUri: REDIRECT_URI,
      codeVerifier: verifier,
      nonce,
      bearerTokenTargetPublicKey: bearerTarget.publicKeyUncompressed,
    });
    expect(authenticated.activity.status, JSON.stringify(authenticated.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");

    // The provider's token endpoint saw HTTP Basic client authentication with the decrypted secret, and the verifier.
    expect(tokenRequests).toHaveLength(1);
    expect(Buffer.from(tokenRequests[0]!.authorization!.replace(/^Basic /, ""), "base64").toString()).toBe(`${CLIENT_ID}:${CLIENT_SECRET}`);
    expect(tokenRequests[0]!.body).toMatchObject({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
    });

    // Any OIDC client verifies the token from Strongroom's discovery document and JWKS.
    const discovery = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as {
      issuer: string;
      jwks_uri: string;
    };
    expect(discovery.issuer).toBe(server.url);
    const { payload, protectedHeader } = await jwtVerify(authenticated.oidcToken, createRemoteJWKSet(new URL(discovery.jwks_uri)), {
      issuer: server.url,
      audience: CLIENT_ID,
    });
    expect(protectedHeader.alg).toBe("ES256");
    expect(payload).toMatchObject({ sub: `x:${X_USER_ID}`, aud: CLIENT_ID, nonce });
    expect(payload.exp! - payload.iat!).toBe(300);
    const bearer = Buffer.from(decryptCredentialBundle(payload.encrypted_bearer_token as string, bearerTarget.privateKey), "hex").toString(
      "utf8",
    );
    expect(bearer).toBe(bearerTokensSeen.at(-1));

    // Register that identity on a sub-organization's user (from the token itself), then log in as them.
    const sub = await subOrganizationWithUser("X login", [{ providerName: "X", oidcToken: authenticated.oidcToken }]);
    const login = await server
      .client(undefined, sub.organizationId)
      .oauthLogin({ oidcToken: authenticated.oidcToken, publicKey: sessionKey.publicKey });
    expect(login.activity.status, JSON.stringify(login.activity.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    await expect(verifySessionJwtSignature(login.session, server.services.signer.publicKeyHex)).resolves.toBe(true);
    expect(decodeJwt(login.session)).toMatchObject({
      user_id: sub.userId,
      organization_id: sub.organizationId,
      public_key: sessionKey.publicKey,
    });
    const asUser = server.client({ apiPublicKey: sessionKey.publicKey, apiPrivateKey: sessionKey.privateKey }, sub.organizationId);
    expect(await asUser.getWhoami({})).toMatchObject({ userId: sub.userId, organizationId: sub.organizationId });
    expect((await asUser.createUserTag({ userTagName: "after oauth login", userIds: [] })).activity.status).toBe(
      "ACTIVITY_STATUS_COMPLETED",
    );

    // The legacy oauth activity: a credential bundle to the key whose hash is the nonce.
    const legacyTarget = generateP256KeyPair();
    const legacyCode = await authorize();
    const legacyToken = await server.client().oauth2Authenticate({
      oauth2CredentialId: credentialId,
      authCode: legacyCode.code,
      redirectUri: REDIRECT_URI,
      codeVerifier: legacyCode.verifier,
      nonce: loginNonce(legacyTarget.publicKeyUncompressed),
    });
    const legacy = await server
      .client(undefined, sub.organizationId)
      .oauth({ oidcToken: legacyToken.oidcToken, targetPublicKey: legacyTarget.publicKeyUncompressed });
    expect(legacy.userId).toBe(sub.userId);
    const legacyKey = decryptCredentialBundle(legacy.credentialBundle, legacyTarget.privateKey);
    const { getPublicKey } = await import("@turnkey/crypto");
    const legacyPublic = bytesToHex(getPublicKey(legacyKey, true));
    expect((await server.client({ apiPublicKey: legacyPublic, apiPrivateKey: legacyKey }, sub.organizationId).getWhoami({})).userId).toBe(
      sub.userId,
    );
    const key = (await server.client(undefined, sub.organizationId).getApiKey({ apiKeyId: legacy.apiKeyId })).apiKey;
    expect(key.credential.type).toBe("CREDENTIAL_TYPE_OAUTH_KEY_P256");
  });

  it("Discord: user id from /api/users/@me; provider refusals, a wrong verifier and a silent provider fail the activity naming the provider, never echoing secret or code", async () => {
    const credentialId = await createCredential("OAUTH2_PROVIDER_DISCORD");
    const first = await authorize();
    const ok = await server.client().oauth2Authenticate({
      oauth2CredentialId: credentialId,
      authCode: first.code,
      redirectUri: REDIRECT_URI,
      codeVerifier: first.verifier,
      nonce: "n-1",
    });
    expect(decodeJwt(ok.oidcToken)).toMatchObject({ iss: server.url, sub: `discord:${DISCORD_USER_ID}`, aud: CLIENT_ID, nonce: "n-1" });

    const refusedCode = await authorize();
    provider.service.once(Events.BeforeResponse, (response) => {
      response.statusCode = 400;
      response.body = { error: "invalid_grant", error_description: 'Invalid "code" in request.' };
    });
    const refused = await server.client().oauth2Authenticate({
      oauth2CredentialId: credentialId,
      authCode: refusedCode.code,
      redirectUri: REDIRECT_URI,
      codeVerifier: refusedCode.verifier,
      nonce: "n-2",
    });
    expect(refused.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(refused.activity.failure?.message).toContain("Discord refused the authorization code (HTTP 400): invalid_grant");

    const wrongVerifier = await authorize();
    const mismatch = await server.client().oauth2Authenticate({
      oauth2CredentialId: credentialId,
      authCode: wrongVerifier.code,
      redirectUri: REDIRECT_URI,
      codeVerifier: randomBytes(32).toString("base64url"),
      nonce: "n-3",
    });
    expect(mismatch.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(mismatch.activity.failure?.message).toMatch(/Discord refused the authorization code \(HTTP 400\).*code_verifier/);
    for (const failure of [refused, mismatch]) {
      const text = JSON.stringify(failure.activity.failure);
      expect(text).not.toContain(CLIENT_SECRET);
      expect(text).not.toContain(refusedCode.code);
      expect(text).not.toContain(wrongVerifier.code);
    }

    const slow = await authorize();
    slowDiscordUserInfo = true;
    const timedOut = await server.client().oauth2Authenticate({
      oauth2CredentialId: credentialId,
      authCode: slow.code,
      redirectUri: REDIRECT_URI,
      codeVerifier: slow.verifier,
      nonce: "n-4",
    });
    slowDiscordUserInfo = false;
    expect(timedOut.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(timedOut.activity.failure?.message).toContain("Discord user-info endpoint");
    expect(timedOut.activity.failure?.message).toContain("no answer within 1000 ms");

    const unknown = await server.client().oauth2Authenticate({
      oauth2CredentialId: "no-such-credential",
      authCode: "c",
      redirectUri: REDIRECT_URI,
      codeVerifier: "v",
      nonce: "n",
    });
    expect(unknown.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(unknown.activity.failure?.message).toContain(
      `oauth2CredentialId: no OAuth 2.0 credential "no-such-credential" in organization ${server.root.organizationId}`,
    );
  });

  it("an ID token of a configured OIDC issuer logs in; wrong nonce, wrong audience, expiry, unknown issuer, bad signature and unknown user are refused clearly", async () => {
    const sessionKey = generateP256KeyPair();
    // A real authorization-code flow at the OIDC issuer: its ID token carries the nonce given at /authorize.
    const { code, verifier } = await authorize({ nonce: loginNonce(sessionKey.publicKey) });
    const tokens = (await (
      await fetch(`${issuer}/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code,
          code_verifier: verifier,
          redirect_uri: REDIRECT_URI,
          client_id: CLIENT_ID,
        }).toString(),
      })
    ).json()) as { id_token: string };
    const idToken = tokens.id_token;
    expect(decodeJwt(idToken)).toMatchObject({ iss: issuer, sub: "johndoe", aud: CLIENT_ID });

    const sub = await subOrganizationWithUser("OIDC login", [
      { providerName: "Mock OIDC", oidcClaims: { iss: issuer, sub: "johndoe", aud: CLIENT_ID } },
    ]);
    const parentOnSub = server.client(undefined, sub.organizationId);
    const login = await parentOnSub.oauthLogin({ oidcToken: idToken, publicKey: sessionKey.publicKey, expirationSeconds: "600" });
    expect(decodeJwt(login.session)).toMatchObject({ user_id: sub.userId, organization_id: sub.organizationId });
    expect(
      (await server.client({ apiPublicKey: sessionKey.publicKey, apiPrivateKey: sessionKey.privateKey }, sub.organizationId).getWhoami({}))
        .userId,
    ).toBe(sub.userId);

    const mockToken = (claims: Record<string, unknown>, expiresIn?: number) =>
      provider.issuer.buildToken({
        expiresIn,
        scopesOrTransform: (_header, payload) =>
          Object.assign(payload, { sub: "johndoe", aud: CLIENT_ID, nonce: loginNonce(sessionKey.publicKey) }, claims),
      });

    const other = generateP256KeyPair();
    const wrongNonce = await refusal(parentOnSub.oauthLogin({ oidcToken: await mockToken({}), publicKey: other.publicKey }));
    expect(wrongNonce.code).toBe(3);
    expect(wrongNonce.message).toContain(`it must be hex(sha256(publicKey)) = ${loginNonce(other.publicKey)}`);

    const viaTknonce = await parentOnSub.oauthLogin({
      oidcToken: await mockToken({ nonce: undefined, tknonce: loginNonce(other.publicKey) }),
      publicKey: other.publicKey,
    });
    expect(viaTknonce.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");

    const wrongAudience = await parentOnSub.oauthLogin({
      oidcToken: await mockToken({ aud: "another-client" }),
      publicKey: sessionKey.publicKey,
    });
    expect(wrongAudience.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(wrongAudience.activity.failure?.message).toContain(
      `no user of organization ${sub.organizationId} has an OAuth provider with issuer "${issuer}", subject "johndoe" and audience "another-client"`,
    );
    expect(wrongAudience.activity.failure?.message).toContain(`registered only with audience "${CLIENT_ID}"`);

    const expired = await refusal(parentOnSub.oauthLogin({ oidcToken: await mockToken({}, -120), publicKey: sessionKey.publicKey }));
    expect(expired.message).toContain("oidcToken: the token expired at");

    const stranger = await generateKeyPair("ES256");
    const foreign = await new SignJWT({ nonce: loginNonce(sessionKey.publicKey) })
      .setProtectedHeader({ alg: "ES256" })
      .setIssuer("https://accounts.unknown.example")
      .setSubject("johndoe")
      .setAudience(CLIENT_ID)
      .setExpirationTime("5m")
      .sign(stranger.privateKey);
    const unknownIssuer = await refusal(parentOnSub.oauthLogin({ oidcToken: foreign, publicKey: sessionKey.publicKey }));
    expect(unknownIssuer.message).toContain('issuer "https://accounts.unknown.example" is not accepted');

    // Claiming to be Strongroom, signed by another key.
    const forged = await new SignJWT({ nonce: loginNonce(sessionKey.publicKey) })
      .setProtectedHeader({ alg: "ES256" })
      .setIssuer(server.url)
      .setSubject(`x:${X_USER_ID}`)
      .setAudience(CLIENT_ID)
      .setExpirationTime("5m")
      .sign(stranger.privateKey);
    const badSignature = await refusal(parentOnSub.oauthLogin({ oidcToken: forged, publicKey: sessionKey.publicKey }));
    expect(badSignature.message).toContain("the signature does not verify");

    const unknownUser = await parentOnSub.oauthLogin({ oidcToken: await mockToken({ sub: "janedoe" }), publicKey: sessionKey.publicKey });
    expect(unknownUser.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(unknownUser.activity.failure?.message).toContain(
      `no user of organization ${sub.organizationId} has an OAuth provider with issuer "${issuer}", subject "janedoe"`,
    );
  });

  it("the client secret is nowhere in the database or the logs", async () => {
    const tables = await server.services.db.query<{ tablename: string }>(
      "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()",
    );
    expect(tables.map((t) => t.tablename)).toContain("oauth2_credentials");
    for (const { tablename } of tables) {
      const rows = await server.services.db.query<{ row: string }>(`SELECT row_to_json(t)::text AS row FROM "${tablename}" t`);
      for (const { row } of rows) {
        expect(row, tablename).not.toContain(CLIENT_SECRET);
        expect(row, tablename).not.toContain(Buffer.from(CLIENT_SECRET).toString("hex"));
        expect(row, tablename).not.toContain(Buffer.from(CLIENT_SECRET).toString("base64"));
      }
    }
    const log = logLines.join("");
    expect(log.length).toBeGreaterThan(0);
    expect(log).not.toContain(CLIENT_SECRET);
  });
});
