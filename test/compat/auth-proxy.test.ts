import { signWithApiKey } from "@turnkey/api-key-stamper";
import { StamperType } from "@turnkey/core";
import { generateP256KeyPair } from "@turnkey/crypto";
import { WebauthnStamper } from "@turnkey/webauthn-stamper";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activitiesByOperation } from "../../src/pipeline/registry.js";
import { issueVerificationToken } from "../../src/auth/verification-token.js";
import { PROXY_ACTIVITY_TYPES } from "../../src/domains/auth-proxy-config/identity.js";
import { claimsOf, coreClient, coreRefusal, submitAsRoot } from "../helpers/auth-proxy.js";
import { activityBody, p256Stamp, post } from "../helpers/requests.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { SoftwareAuthenticator } from "../helpers/software-authenticator.js";

describe("auth proxy through the unchanged @turnkey/core", () => {
  let server: TestServer;
  let configId: string;
  let proxyUserId: string;

  const submit = (operation: string, type: string, parameters: unknown, organizationId?: string) =>
    submitAsRoot(server, operation, type, parameters, organizationId);

  const core = (options: { configId?: string; passkeyStamper?: WebauthnStamper } = {}) =>
    coreClient(server, options.configId ?? configId, options.passkeyStamper);

  const subOrgCount = async () => (await server.client().getSubOrgIds({ paginationOptions: { limit: "100" } })).organizationIds.length;

  const proxy = (path: string, body: string, headers: Record<string, string>) => post(`${server.authProxyUrl}${path}`, body, headers);

  beforeAll(async () => {
    server = await startTestServer();
    const enabled = await submit("enable_auth_proxy", "ACTIVITY_TYPE_ENABLE_AUTH_PROXY", {});
    expect(enabled.status, JSON.stringify(enabled.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    proxyUserId = enabled.result.enableAuthProxyResult!.userId as string;
    const updated = await submit("update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", {
      sessionExpirationSeconds: 1200,
      otpLength: 6,
      otpAlphanumeric: false,
      walletKitSettings: {
        enabledSocialProviders: ["google"],
        oauthClientIds: { google: "client-123" },
        oauthRedirectUrl: "https://app.example.com/oauth",
      },
    });
    expect(updated.status, JSON.stringify(updated.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
    configId = updated.result.updateAuthProxyConfigResult!.configId as string;
  });
  afterAll(async () => server.close());

  it("enable creates a non-root proxy user with one API key and a visible policy allowing its activity types; enabling again reuses them", async () => {
    const { user } = await server.client().getUser({ userId: proxyUserId });
    expect(user.apiKeys).toHaveLength(1);
    const [proxyUser] = await server.services.db.query<{ is_root: boolean }>("SELECT is_root FROM users WHERE id = $1", [proxyUserId]);
    expect(proxyUser?.is_root).toBe(false);
    const { policies } = await server.client().getPolicies({});
    const policy = policies.find((p) => p.consensus.includes(proxyUserId));
    expect(policy?.effect).toBe("EFFECT_ALLOW");
    expect(policy?.condition).toContain("'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8'");
    const again = await submit("enable_auth_proxy", "ACTIVITY_TYPE_ENABLE_AUTH_PROXY", {});
    expect(again.result.enableAuthProxyResult!.userId).toBe(proxyUserId);
    // The proxy key's private half is only ever stored sealed: nowhere in the database in the clear.
    const [row] = await server.services.db.query<{ sealed_private_key: string }>(
      "SELECT sealed_private_key FROM auth_proxy_configs WHERE id = $1",
      [configId],
    );
    const privateKey = Buffer.from(server.services.kek.open(row!.sealed_private_key, `auth-proxy-key:${configId}`));
    expect(privateKey).toHaveLength(32);
    let database = "";
    const tables = await server.services.db.query<{ tablename: string }>(
      "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()",
    );
    for (const { tablename } of tables) database += JSON.stringify(await server.services.db.query(`SELECT * FROM "${tablename}"`));
    for (const form of [privateKey.toString("hex"), privateKey.toString("hex").toUpperCase(), privateKey.toString("base64")])
      expect(database).not.toContain(form);
  });

  it("the proxy policy names the very activity types the proxy submits", () => {
    for (const [operation, type] of Object.entries(PROXY_ACTIVITY_TYPES))
      expect(activitiesByOperation.get(operation)?.type, operation).toBe(type);
  });

  it("signup_v2 with a wallet creates the sub-organization, whose wallet sdk-server sees with the same addresses, and /v1/account finds it", async () => {
    const http = core();
    const key = generateP256KeyPair();
    const signedUp = await http.proxySignupV2({
      userName: "alice",
      userEmail: "alice@example.com",
      organizationName: "Alice's",
      apiKeys: [{ apiKeyName: "alice key", publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }],
      authenticators: [],
      oauthProviders: [{ providerName: "google", oidcClaims: { iss: "https://accounts.google.com", sub: "alice-sub", aud: "client-123" } }],
      wallet: {
        walletName: "Alice wallet",
        mnemonicLength: 24,
        accounts: [
          { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" },
          { curve: "CURVE_ED25519", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/501'/0'/0'", addressFormat: "ADDRESS_FORMAT_SOLANA" },
          {
            curve: "CURVE_SECP256K1",
            pathFormat: "PATH_FORMAT_BIP32",
            path: "m/84'/0'/0'/0/0",
            addressFormat: "ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH",
          },
        ],
      },
    });
    expect(signedUp.wallet?.addresses).toHaveLength(3);
    const { accounts } = await server
      .client()
      .getWalletAccounts({ organizationId: signedUp.organizationId, walletId: signedUp.wallet!.walletId });
    expect(accounts.map((a) => a.address)).toEqual(signedUp.wallet!.addresses);
    expect(accounts[0]!.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(accounts[2]!.address).toMatch(/^bc1q/);
    const alice = server.client({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }, signedUp.organizationId);
    expect(await alice.getWhoami({})).toMatchObject({
      organizationId: signedUp.organizationId,
      userId: signedUp.userId,
      username: "alice",
    });

    // Lookups find only what was proven: the key by the stamp above; the email (no verification token) and the
    // OAuth identity (bare claims, no token) were only asserted, so they find nothing (SECURITY.md, pre-hijacking).
    expect(await http.proxyGetAccount({ filterType: "PUBLIC_KEY", filterValue: key.publicKey })).toEqual({
      organizationId: signedUp.organizationId,
    });
    expect(await http.proxyGetAccount({ filterType: "EMAIL", filterValue: "ALICE@example.com" })).toEqual({});
    const claims = JSON.stringify({ iss: "https://accounts.google.com", sub: "alice-sub", aud: "client-123" });
    expect(await http.proxyGetAccount({ filterType: "OIDC_CLAIMS", filterValue: claims })).toEqual({});
    expect(await http.proxyGetAccount({ filterType: "EMAIL", filterValue: "nobody@example.com" })).toEqual({});

    // The signup is an ordinary activity of the organization, approved by the proxy user: audited like any other.
    const { activities } = await server.client().getActivities({ filterByType: ["ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8"] });
    const signup = activities.find(
      (a) =>
        (a.result as Record<string, { subOrganizationId?: string }>).createSubOrganizationResultV8?.subOrganizationId ===
        signedUp.organizationId,
    );
    expect(signup?.votes[0]?.userId).toBe(proxyUserId);
  });

  it("passkey signup (attestation verified) followed by stamp_login with that passkey through core's own client", async () => {
    const authenticator = new SoftwareAuthenticator();
    const challenge = randomBytes(32).toString("base64url");
    const temporary = generateP256KeyPair();
    const signedUp = await core().proxySignupV2({
      userName: "bob",
      organizationName: "Bob's",
      apiKeys: [
        {
          apiKeyName: `passkey-auth-${temporary.publicKey}`,
          publicKey: temporary.publicKey,
          curveType: "API_KEY_CURVE_P256",
          expirationSeconds: "60",
        },
      ],
      authenticators: [{ authenticatorName: "bob's laptop", challenge, attestation: authenticator.attest(challenge) }],
      oauthProviders: [],
    });
    authenticator.install();
    const sessionKey = generateP256KeyPair();
    const http = core({ passkeyStamper: new WebauthnStamper({ rpId: authenticator.rpId }) });
    const { session } = await http.stampLogin(
      { publicKey: sessionKey.publicKey, organizationId: signedUp.organizationId },
      StamperType.Passkey,
    );
    expect(claimsOf(session)).toMatchObject({
      organization_id: signedUp.organizationId,
      user_id: signedUp.userId,
      public_key: sessionKey.publicKey,
    });

    // A forged attestation is refused and creates nothing.
    const before = await subOrgCount();
    const forged = authenticator.attest(challenge);
    const error = await coreRefusal(
      core().proxySignupV2({
        userName: "mallory",
        apiKeys: [],
        authenticators: [{ authenticatorName: "forged", challenge: randomBytes(32).toString("base64url"), attestation: forged }],
        oauthProviders: [],
      }),
    );
    expect(error.code).toBe(3);
    expect(await subOrgCount()).toBe(before);
  });

  it("a verification token must be for the signup's email, and a token bound to a key needs that key's client signature over the signup", async () => {
    const tokenKey = generateP256KeyPair();
    const { token, claims } = await issueVerificationToken(
      server.services.signer,
      {
        verificationType: "OTP_TYPE_EMAIL",
        contact: "carol@example.com",
        organizationId: server.root.organizationId,
        publicKey: tokenKey.publicKey,
      },
      600,
    );
    const apiKeys = [{ apiKeyName: "carol key", publicKey: generateP256KeyPair().publicKey, curveType: "API_KEY_CURVE_P256" as const }];
    const body = {
      userName: "carol",
      organizationName: "Carol's",
      verificationToken: token,
      apiKeys,
      authenticators: [],
      oauthProviders: [],
    };
    const signature = async (signupV2: Record<string, unknown>) => {
      const message = JSON.stringify({ signupV2, tokenId: claims.id, type: "USAGE_TYPE_SIGNUP" });
      const signed = await signWithApiKey({ content: message, publicKey: tokenKey.publicKey, privateKey: tokenKey.privateKey });
      return { publicKey: tokenKey.publicKey, scheme: "CLIENT_SIGNATURE_SCHEME_API_P256" as const, message, signature: signed };
    };
    const before = await subOrgCount();

    const otherEmail = await coreRefusal(
      core().proxySignupV2({
        ...body,
        userEmail: "mallory@example.com",
        clientSignature: await signature({ apiKeys, authenticators: [], oauthProviders: [], email: "mallory@example.com" }),
      }),
    );
    expect(otherEmail.code).toBe(3);
    expect(otherEmail.message).toContain("verificationToken");

    const unsigned = await coreRefusal(core().proxySignupV2({ ...body, userEmail: "carol@example.com" }));
    expect(unsigned.message).toContain("clientSignature: required");

    const otherKeys = await coreRefusal(
      core().proxySignupV2({
        ...body,
        userEmail: "carol@example.com",
        clientSignature: await signature({ apiKeys: [], authenticators: [], oauthProviders: [], email: "carol@example.com" }),
      }),
    );
    expect(otherKeys.message).toContain("signupV2.apiKeys");
    expect(await subOrgCount()).toBe(before);

    const signedUp = await core().proxySignupV2({
      ...body,
      userEmail: "carol@example.com",
      clientSignature: await signature({ apiKeys, authenticators: [], oauthProviders: [], email: "carol@example.com" }),
    });
    expect(await core().proxyGetAccount({ filterType: "EMAIL", filterValue: "carol@example.com" })).toEqual({
      organizationId: signedUp.organizationId,
    });
  });

  it("bad input is 400 with the API's error shape and creates nothing", async () => {
    const before = await subOrgCount();
    const badWallet = await coreRefusal(
      core().proxySignupV2({
        userName: "dave",
        apiKeys: [],
        authenticators: [],
        oauthProviders: [],
        wallet: {
          walletName: "w",
          mnemonicLength: 13,
          accounts: [
            {
              curve: "CURVE_SECP256K1",
              pathFormat: "PATH_FORMAT_BIP32",
              path: "m/44'/60'/0'/0/0",
              addressFormat: "ADDRESS_FORMAT_ETHEREUM",
            },
          ],
        },
      }),
    );
    expect(badWallet.code).toBe(3);
    expect(badWallet.message).toContain("mnemonicLength");
    const badKey = await coreRefusal(
      core().proxySignupV2({
        userName: "dave",
        apiKeys: [{ apiKeyName: "k", publicKey: "zz", curveType: "API_KEY_CURVE_P256" }],
        authenticators: [],
        oauthProviders: [],
      }),
    );
    expect(badKey.message).toContain("publicKey");
    // The first signup takes OAuth providers by OIDC token only.
    const v1Claims = await proxy(
      "/v1/signup",
      JSON.stringify({
        userName: "dave",
        apiKeys: [],
        authenticators: [],
        oauthProviders: [{ providerName: "google", oidcClaims: { iss: "https://i", sub: "s", aud: "a" } }],
      }),
      { "X-Auth-Proxy-Config-Id": configId },
    );
    expect(v1Claims.status).toBe(400);
    expect(String(v1Claims.json.message)).toContain("oauthProviders[0].oidcToken");
    const notJson = await proxy("/v1/signup_v2", "{not json", { "X-Auth-Proxy-Config-Id": configId });
    expect(notJson.status).toBe(400);
    expect(notJson.json).toMatchObject({ code: 3, details: expect.any(Array) });
    const badFilter = await proxy("/v1/account", JSON.stringify({ filterType: "SHOE_SIZE", filterValue: "9" }), {
      "X-Auth-Proxy-Config-Id": configId,
    });
    expect(badFilter.status).toBe(400);
    expect(await subOrgCount()).toBe(before);
    const v1 = await core().proxySignup({
      userName: "dave",
      apiKeys: [{ apiKeyName: "k", publicKey: generateP256KeyPair().publicKey, curveType: "API_KEY_CURVE_P256" }],
      authenticators: [],
      oauthProviders: [],
    });
    expect(v1.userId).toBeTruthy();
    expect(await subOrgCount()).toBe(before + 1);
  });

  it("the config id header is required (any case): missing or unknown is 401, disabled is 403, enabled again it serves", async () => {
    const missing = await proxy("/v1/wallet_kit_config", "", {});
    expect(missing.status).toBe(401);
    expect(missing.json).toMatchObject({ code: 16, details: expect.any(Array) });
    expect(String(missing.json.message)).toContain("X-Auth-Proxy-Config-Id");
    const unknown = await proxy("/v1/wallet_kit_config", "", { "x-AUTH-proxy-CONFIG-id": "no-such-config" });
    expect(unknown.status).toBe(401);
    expect(String(unknown.json.message)).toContain("no-such-config");
    expect((await coreRefusal(core({ configId: "no-such-config" }).proxyGetWalletKitConfig({}))).code).toBe(16);

    expect((await submit("disable_auth_proxy", "ACTIVITY_TYPE_DISABLE_AUTH_PROXY", {})).status).toBe("ACTIVITY_STATUS_COMPLETED");
    const disabled = await proxy(
      "/v1/signup_v2",
      JSON.stringify({ userName: "erin", apiKeys: [], authenticators: [], oauthProviders: [] }),
      { "X-Auth-Proxy-Config-Id": configId },
    );
    expect(disabled.status).toBe(403);
    expect(String(disabled.json.message)).toContain(configId);
    expect(String(disabled.json.message)).toContain("disabled");

    expect((await submit("enable_auth_proxy", "ACTIVITY_TYPE_ENABLE_AUTH_PROXY", {})).result.enableAuthProxyResult!.userId).toBe(
      proxyUserId,
    );
    const config = await core().proxyGetWalletKitConfig({});
    expect(config).toEqual({
      enabledProviders: ["email", "sms", "passkey", "wallet", "google"],
      sessionExpirationSeconds: "1200",
      organizationId: server.root.organizationId,
      oauthClientIds: { google: "client-123" },
      oauthRedirectUrl: "https://app.example.com/oauth",
      otpAlphanumeric: false,
      otpLength: "6",
    });
    expect(await core().proxyGetWalletKitClientParams({})).toEqual({});
  });

  it("only allowed origins may call (exact origins or *), preflights are answered, and the settings are validated", async () => {
    const set = await submit("update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", {
      allowedOrigins: ["https://app.example.com"],
    });
    expect(set.result.updateAuthProxyConfigResult!.configId).toBe(configId);
    const evil = await proxy("/v1/wallet_kit_config", "", { "X-Auth-Proxy-Config-Id": configId, Origin: "https://evil.example.com" });
    expect(evil.status).toBe(403);
    expect(String(evil.json.message)).toContain("https://evil.example.com");
    const good = await fetch(`${server.authProxyUrl}/v1/wallet_kit_config`, {
      method: "POST",
      headers: { "X-Auth-Proxy-Config-Id": configId, Origin: "https://app.example.com" },
    });
    expect(good.status).toBe(200);
    expect(good.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    const preflight = await fetch(`${server.authProxyUrl}/v1/signup_v2`, {
      method: "OPTIONS",
      headers: {
        Origin: "https://app.example.com",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type,x-auth-proxy-config-id",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-headers")).toContain("X-Auth-Proxy-Config-ID");

    for (const [parameters, field] of [
      [{ allowedOrigins: ["https://*.example.com"] }, "allowedOrigins[0]"],
      [{ allowedOrigins: ["https://app.example.com/path"] }, "allowedOrigins[0]"],
      [{ otpLength: 5 }, "otpLength"],
      [{ allowedAuthMethods: ["telepathy"] }, "allowedAuthMethods[0]"],
      [{ captchaEnabled: true }, "captchaEnabled"],
    ] as const) {
      const body = activityBody("ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", server.root.organizationId, parameters);
      const refusedUpdate = await post(`${server.url}/public/v1/submit/update_auth_proxy_config`, body, {
        "X-Stamp": p256Stamp(body, server.root.apiPublicKey, server.root.apiPrivateKey!),
      });
      expect(refusedUpdate.status, JSON.stringify(parameters)).toBe(400);
      expect(String(refusedUpdate.json.message)).toContain(field);
    }
    await submit("update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", { allowedOrigins: ["*"] });
    expect(
      (await proxy("/v1/wallet_kit_config", "", { "X-Auth-Proxy-Config-Id": configId, Origin: "https://evil.example.com" })).status,
    ).toBe(200);
  });

  it("allowedAuthMethods limits what the proxy does", async () => {
    await submit("update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", { allowedAuthMethods: ["email"] });
    const passkeyless = await coreRefusal(
      core().proxySignupV2({
        userName: "frank",
        apiKeys: [{ apiKeyName: "k", publicKey: generateP256KeyPair().publicKey, curveType: "API_KEY_CURVE_P256" }],
        authenticators: [],
        oauthProviders: [],
      }),
    );
    expect(passkeyless.code).toBe(7);
    expect(passkeyless.message).toContain("wallet");
    await submit("update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", { allowedAuthMethods: [] });
  });

  it("the proxy acts only as its policy allows: without the policy it is refused, and enabling again restores it", async () => {
    const { policies } = await server.client().getPolicies({});
    const policy = policies.find((p) => p.consensus.includes(proxyUserId))!;
    expect((await server.client().deletePolicy({ policyId: policy.policyId })).activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    const signup = () =>
      core().proxySignupV2({
        userName: "heidi",
        apiKeys: [{ apiKeyName: "k", publicKey: generateP256KeyPair().publicKey, curveType: "API_KEY_CURVE_P256" }],
        authenticators: [],
        oauthProviders: [],
      });
    const denied = await coreRefusal(signup());
    expect(denied.code).toBe(7);
    // The refusal says why, but names no id the anonymous caller did not send (the proxy user's is withheld).
    expect(denied.message).toContain("(withheld)");
    expect(denied.message).not.toContain(proxyUserId);
    await submit("enable_auth_proxy", "ACTIVITY_TYPE_ENABLE_AUTH_PROXY", {});
    expect((await signup()).organizationId).toBeTruthy();
  });

  it("the proxy's requests are exempt from the organization's IP allowlist, which still refuses other keys", async () => {
    const other = generateP256KeyPair();
    const added = await server.client().createApiKeys({
      userId: server.root.userId,
      apiKeys: [{ apiKeyName: "other", publicKey: other.publicKey, curveType: "API_KEY_CURVE_P256" }],
    });
    expect(added.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    // The root key keeps loopback through a list of its own; the organization allows only 10.1.0.0/24.
    expect(
      (
        await submit("set_ip_allowlist", "ACTIVITY_TYPE_SET_IP_ALLOWLIST", {
          publicKey: server.root.apiPublicKey,
          rules: [{ cidr: "127.0.0.1/32" }],
        })
      ).status,
    ).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(
      (await submit("set_ip_allowlist", "ACTIVITY_TYPE_SET_IP_ALLOWLIST", { enabled: true, rules: [{ cidr: "10.1.0.0/24" }] })).status,
    ).toBe("ACTIVITY_STATUS_COMPLETED");
    try {
      const denied = await coreRefusal(
        server.client({ apiPublicKey: other.publicKey, apiPrivateKey: other.privateKey }).getWhoami({}) as never,
      );
      expect(denied.message).toContain("not allowed");
      const signedUp = await core().proxySignupV2({
        userName: "grace",
        apiKeys: [{ apiKeyName: "k", publicKey: generateP256KeyPair().publicKey, curveType: "API_KEY_CURVE_P256" }],
        authenticators: [],
        oauthProviders: [],
      });
      expect(signedUp.organizationId).toBeTruthy();
    } finally {
      await submit("remove_ip_allowlist", "ACTIVITY_TYPE_REMOVE_IP_ALLOWLIST", {});
    }
  });
});
