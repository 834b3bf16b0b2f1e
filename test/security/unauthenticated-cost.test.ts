import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { encryptOauth2ClientSecret, encryptWalletToBundle, generateP256KeyPair } from "@turnkey/crypto";
import { SignJWT, exportJWK, generateKeyPair } from "jose";
import { parseTransaction, recoverTransactionAddress, serializeTransaction } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refusal } from "../helpers/refusal.js";
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

describe("import_wallet does not hold the store while it derives", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  const ethereumAccounts = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      curve: "CURVE_SECP256K1" as const,
      pathFormat: "PATH_FORMAT_BIP32" as const,
      path: `m/44'/60'/0'/0/${i}`,
      addressFormat: "ADDRESS_FORMAT_ETHEREUM" as const,
    }));

  /** A sub-organization with its own root user and key, as an anonymous signup makes one: the importing tenant. */
  async function tenant() {
    const key = generateP256KeyPair();
    const { subOrganizationId } = await server.client().createSubOrganization({
      subOrganizationName: `importer ${Math.random()}`,
      rootQuorumThreshold: 1,
      rootUsers: [
        {
          userName: "importer",
          apiKeys: [{ apiKeyName: "importer", publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }],
          authenticators: [],
          oauthProviders: [],
        },
      ],
    });
    const client = server.client({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }, subOrganizationId);
    const { userId } = await client.getWhoami({ organizationId: subOrganizationId });
    const bundleFor = async () => {
      const { importBundle } = await client.initImportWallet({ userId });
      return encryptWalletToBundle({
        mnemonic: "test test test test test test test test test test test junk",
        importBundle,
        userId,
        organizationId: subOrganizationId,
        dangerouslyOverrideSignerPublicKey: server.services.signer.publicKeyHex,
      });
    };
    return { client, userId, bundleFor };
  }

  it("another tenant's requests are served while a 500-account import derives", async () => {
    const importer = await tenant();
    const encryptedBundle = await importer.bundleFor();
    let done = false;
    const big = importer.client
      .importWallet({ userId: importer.userId, walletName: "big import", encryptedBundle, accounts: ethereumAccounts(500) })
      .finally(() => (done = true));
    let servedMeanwhile = 0;
    while (!done) {
      // Another tenant (the root organization) reading the store.
      await server.client().getWhoami({ organizationId: server.root.organizationId });
      if (!done) servedMeanwhile++;
    }
    const imported = await big;
    expect(imported.addresses).toHaveLength(500);
    // The first address of the well-known test mnemonic: derived from the imported secret, not another one.
    expect(imported.addresses[0]).toBe("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
    expect(servedMeanwhile).toBeGreaterThanOrEqual(5);
  }, 120_000);

  it("refuses an import over create_wallet's 500 accounts with 400 naming the cap, importing nothing and keeping the import key", async () => {
    const importer = await tenant();
    const encryptedBundle = await importer.bundleFor();
    const over = await refusal(
      importer.client.importWallet({ userId: importer.userId, walletName: "too big", encryptedBundle, accounts: ethereumAccounts(501) }),
    );
    expect(over.code).toBe(3);
    expect(over.message).toContain("accounts");
    expect(over.message).toContain("500");
    expect((await importer.client.getWallets({})).wallets).toEqual([]);
    // The pending import is still there: the same bundle imports within the cap.
    const imported = await importer.client.importWallet({
      userId: importer.userId,
      walletName: "within the cap",
      encryptedBundle,
      accounts: ethereumAccounts(2),
    });
    expect(imported.addresses).toHaveLength(2);
  });
});

describe("sign_transaction does not hold the store while it decodes and hashes a large transaction", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it("another tenant's requests are served while a sub-organization signs an Ethereum transaction with 900 kB of calldata", async () => {
    // A sub-organization's root user, what an anonymous signup gets.
    const key = generateP256KeyPair();
    const { subOrganizationId } = await server.client().createSubOrganization({
      subOrganizationName: "signer",
      rootQuorumThreshold: 1,
      rootUsers: [
        {
          userName: "signer",
          apiKeys: [{ apiKeyName: "signer", publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }],
          authenticators: [],
          oauthProviders: [],
        },
      ],
    });
    const signer = server.client({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }, subOrganizationId);
    const { addresses } = await signer.createWallet({
      walletName: "signer",
      accounts: [
        { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" },
      ],
    });
    const unsignedTransaction = serializeTransaction({
      type: "eip1559",
      chainId: 1,
      nonce: 0,
      to: "0x3333333333333333333333333333333333333333",
      data: `0x${"ab".repeat(900_000)}`,
      gas: 30_000_000n,
      maxFeePerGas: 1n,
      maxPriorityFeePerGas: 1n,
    }).slice(2);
    let done = false;
    const signing = signer
      .signTransaction({ signWith: addresses[0]!, type: "TRANSACTION_TYPE_ETHEREUM", unsignedTransaction })
      .finally(() => (done = true));
    let servedMeanwhile = 0;
    while (!done) {
      // Another tenant (the root organization) reading the store.
      await server.client().getWhoami({ organizationId: server.root.organizationId });
      if (!done) servedMeanwhile++;
    }
    const { signedTransaction } = await signing;
    // Signed by the account's key, over the whole calldata.
    const signed = parseTransaction(`0x${signedTransaction}`);
    expect(signed.data?.length).toBe(2 + 1_800_000);
    expect(await recoverTransactionAddress({ serializedTransaction: `0x${signedTransaction}` as `0x02${string}` })).toBe(addresses[0]);
    // 1 to 3 on the previous code, on PGlite: the transaction was decoded and hashed, twice, with every request waiting.
    expect(servedMeanwhile).toBeGreaterThanOrEqual(5);
  }, 120_000);
});
