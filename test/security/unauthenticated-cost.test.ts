import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { encryptOauth2ClientSecret, generateP256KeyPair } from "@turnkey/crypto";
import { SignJWT, exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";

/**
 * An OIDC issuer on loopback that holds every request until released: while oauth_login waits for the
 * issuer's discovery document or keys, the server must not be holding its store.
 */
async function startHeldIssuer() {
  const { publicKey, privateKey } = await generateKeyPair("ES256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "held", alg: "ES256", use: "sig" };
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let firstRequest!: () => void;
  const requested = new Promise<void>((resolve) => (firstRequest = resolve));
  const state = { droppedByClient: false };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    firstRequest();
    response.on("close", () => {
      if (!response.writableEnded) state.droppedByClient = true;
    });
    void released.then(() => {
      if (response.destroyed) return;
      const body = request.url?.includes("openid-configuration") ? { issuer, jwks_uri: `${issuer}/jwks` } : { keys: [jwk] };
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    requested,
    release,
    state,
    token: (claims: Record<string, unknown>) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: "ES256", kid: "held" })
        .setIssuer(issuer)
        .setIssuedAt()
        .setExpirationTime("5m")
        .sign(privateKey),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("no network I/O while the store is held", () => {
  let issuer: Awaited<ReturnType<typeof startHeldIssuer>>;
  let provider: Awaited<ReturnType<typeof startHeldIssuer>>;
  let registrationIssuer: Awaited<ReturnType<typeof startHeldIssuer>>;
  let server: TestServer;

  beforeAll(async () => {
    issuer = await startHeldIssuer();
    provider = await startHeldIssuer();
    registrationIssuer = await startHeldIssuer();
    // A fetch may wait ten minutes: it cannot give up (and free a held store) during the test.
    server = await startTestServer({
      env: {
        OIDC_ISSUERS: `${issuer.issuer},${registrationIssuer.issuer}`,
        OAUTH2_TIMEOUT_MS: "600000",
        OAUTH2_X_TOKEN_URL: `${provider.issuer}/token`,
        OAUTH2_X_USERINFO_URL: `${provider.issuer}/2/users/me`,
      },
    });
  });
  afterAll(async () => {
    issuer?.release();
    provider?.release();
    registrationIssuer?.release();
    await server?.close();
    await issuer?.close();
    await provider?.close();
    await registrationIssuer?.close();
  });

  it("oauth_login verifies its token (fetching the issuer's discovery and keys) before its transaction: other requests are served meanwhile", async () => {
    const sessionKey = generateP256KeyPair();
    const oidcToken = await issuer.token({ sub: "someone", aud: "client", nonce: "n" });
    const login = server
      .client()
      .oauthLogin({ oidcToken, publicKey: sessionKey.publicKey })
      .then(
        () => "answered",
        () => "refused",
      );
    await issuer.requested;
    // The issuer holds oauth_login's fetch (and answers only after this): a request that needs the store must
    // still be served. Had oauth_login's transaction been open, the two would wait for each other.
    const whoami = await server.client().getWhoami({ organizationId: server.root.organizationId });
    expect(whoami.organizationId).toBe(server.root.organizationId);
    expect(issuer.state.droppedByClient).toBe(false);
    issuer.release();
    expect(await login).toMatch(/answered|refused/);
  }, 60_000);

  it("oauth2_authenticate exchanges the code with the provider before its transaction: other requests are served meanwhile", async () => {
    const keys = (await (await fetch(`${server.url}/public/v1/discovery/keys`)).json()) as { encryptionPublicKey: string };
    const encryptedClientSecret = await encryptOauth2ClientSecret("client-secret", keys.encryptionPublicKey);
    const { oauth2CredentialId } = await server
      .client()
      .createOauth2Credential({ provider: "OAUTH2_PROVIDER_X", clientId: "client", encryptedClientSecret });
    const exchange = server
      .client()
      .oauth2Authenticate({
        oauth2CredentialId,
        authCode: "code",
        redirectUri: "https://app.example/callback",
        codeVerifier: "v".repeat(43),
        nonce: "n",
      })
      .then(
        () => "answered",
        () => "refused",
      );
    await provider.requested;
    const whoami = await server.client().getWhoami({ organizationId: server.root.organizationId });
    expect(whoami.organizationId).toBe(server.root.organizationId);
    expect(provider.state.droppedByClient).toBe(false);
    provider.release();
    expect(await exchange).toMatch(/answered|refused/);
  }, 60_000);

  it("create_oauth_providers verifies a registration's token (which proves the identity) before its transaction: other requests are served meanwhile", async () => {
    const oidcToken = await registrationIssuer.token({ sub: "registered", aud: "client" });
    const registration = server
      .client()
      .createOauthProviders({ userId: server.root.userId, oauthProviders: [{ providerName: "held issuer", oidcToken }] })
      .then(
        () => "answered",
        () => "refused",
      );
    await registrationIssuer.requested;
    const whoami = await server.client().getWhoami({ organizationId: server.root.organizationId });
    expect(whoami.organizationId).toBe(server.root.organizationId);
    expect(registrationIssuer.state.droppedByClient).toBe(false);
    registrationIssuer.release();
    expect(await registration).toBe("answered");
  }, 60_000);
});
