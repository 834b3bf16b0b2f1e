import { encryptOtpCodeToBundle, generateP256KeyPair } from "@turnkey/crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { resolveConfig } from "../../src/config.js";
import { startServer, type RunningServer } from "../../src/server/start.js";
import { initRootOrganization } from "../../src/domains/organizations/init-root-organization.js";
import { submitAsRoot } from "../helpers/auth-proxy.js";
import { sharedPostgres } from "../helpers/cluster.js";
import { startMailReceiver, verificationCodeIn } from "../helpers/mail-receiver.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

interface ProxyAnswer {
  status: number;
  retryAfter: string | null;
  body: Record<string, unknown> & { code?: number; message?: string };
}

/** A POST to the auth proxy, as a browser client would send it (optionally through a trusted proxy). */
async function proxyPost(baseUrl: string, configId: string, path: string, body: unknown, forwardedFor?: string): Promise<ProxyAnswer> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-auth-proxy-config-id": configId,
      ...(forwardedFor ? { "x-forwarded-for": forwardedFor } : {}),
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, retryAfter: response.headers.get("retry-after"), body: (await response.json()) as ProxyAnswer["body"] };
}

/** A server whose root organization has the auth proxy enabled (OTP codes delivered to `mail`, email only). */
async function proxiedServer(env: Record<string, string>, mail?: Awaited<ReturnType<typeof startMailReceiver>>, clock?: () => Date) {
  const server = await startTestServer({ env: { ...(mail ? { SMTP_URL: mail.url } : {}), ...env }, ...(clock ? { clock } : {}) });
  await submitAsRoot(server, "enable_auth_proxy", "ACTIVITY_TYPE_ENABLE_AUTH_PROXY", {});
  const updated = await submitAsRoot(server, "update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", {
    otpLength: 6,
    otpAlphanumeric: false,
  });
  expect(updated.status, JSON.stringify(updated.failure)).toBe("ACTIVITY_STATUS_COMPLETED");
  return { server, configId: updated.result.updateAuthProxyConfigResult!.configId as string };
}

function expectRateLimited(answer: ProxyAnswer, limitName: string) {
  expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(429);
  expect(answer.body.code).toBe(8);
  expect(answer.body.message).toContain(limitName);
  expect(answer.body.details).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ turnkeyErrorCode: "RATE_LIMIT_EXCEEDED" }),
      expect.objectContaining({ "@type": "type.googleapis.com/google.rpc.RetryInfo" }),
    ]),
  );
  expect(Number(answer.retryAfter)).toBeGreaterThan(0);
}

describe("OTP guesses and codes are budgeted per contact and per client address, in the database", () => {
  let mail: Awaited<ReturnType<typeof startMailReceiver>>;
  let server: TestServer;
  let configId: string;

  beforeAll(async () => {
    mail = await startMailReceiver();
    ({ server, configId } = await proxiedServer(
      { OTP_WRONG_GUESSES_PER_CONTACT: "5", OTP_CODES_PER_CONTACT: "50", OTP_CODES_PER_ADDRESS: "100", TRUST_PROXY: "127.0.0.1" },
      mail,
    ));
  });
  afterAll(async () => {
    await server?.close();
    await mail?.close();
  });

  async function sendCode(baseUrl: string, contact: string, forwardedFor?: string) {
    const sent = await proxyPost(baseUrl, configId, "/v1/otp_init_v2", { otpType: "OTP_TYPE_EMAIL", contact }, forwardedFor);
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const message = await mail.next(contact);
    return {
      otpId: sent.body.otpId as string,
      bundle: sent.body.otpEncryptionTargetBundle as string,
      code: verificationCodeIn(message.parsed.text ?? "")!,
    };
  }

  async function guess(baseUrl: string, sent: { otpId: string; bundle: string }, code: string) {
    const key = generateP256KeyPair();
    const encryptedOtpBundle = await encryptOtpCodeToBundle(code, sent.bundle, key.publicKey, server.services.signer.publicKeyHex);
    return proxyPost(baseUrl, configId, "/v1/otp_verify_v2", { otpId: sent.otpId, encryptedOtpBundle });
  }

  const wrongFor = (code: string) => (code === "000000" ? "111111" : "000000");

  it("stops evaluating guesses on a contact once its wrong-guess budget is spent, whatever codes they were spread over", async () => {
    const contact = "victim@example.com";
    // otp_init + 3 guesses in a loop: each code locks after 3, but a fresh code gave 3 more guesses before.
    const first = await sendCode(server.authProxyUrl, contact);
    for (let i = 0; i < 3; i++) expect((await guess(server.authProxyUrl, first, wrongFor(first.code))).status).toBe(401);
    const second = await sendCode(server.authProxyUrl, contact);
    for (let i = 0; i < 2; i++) expect((await guess(server.authProxyUrl, second, wrongFor(second.code))).status).toBe(401);
    // Five wrong guesses spent: even the right code of a fresh code is not evaluated now.
    const third = await sendCode(server.authProxyUrl, contact);
    const refused = await guess(server.authProxyUrl, third, third.code);
    expectRateLimited(refused, "wrong guesses");
    expect(refused.body.message).toContain(contact);
    const [row] = await server.services.db.query<{ attempts: number; used_at: Date | null }>(
      "SELECT attempts, used_at FROM otp_codes WHERE id = $1",
      [third.otpId],
    );
    expect(row).toEqual({ attempts: 0, used_at: null });

    // Another contact of the same organization is not affected.
    const other = await sendCode(server.authProxyUrl, "bystander@example.com");
    expect((await guess(server.authProxyUrl, other, other.code)).status).toBe(200);
  });

  it("answers the same limit through the API as a FAILED activity with RESOURCE_EXHAUSTED", async () => {
    const contact = "api-victim@example.com";
    const init = (n: number) =>
      server
        .client()
        .initOtp({ otpType: "OTP_TYPE_EMAIL", contact, appName: "Acme", otpLength: 6, alphanumeric: false, userIdentifier: `u${n}` });
    const verify = async (otpId: string, bundle: string, code: string) => {
      const key = generateP256KeyPair();
      return server.client().verifyOtp({
        otpId,
        encryptedOtpBundle: await encryptOtpCodeToBundle(code, bundle, key.publicKey, server.services.signer.publicKeyHex),
      });
    };
    let last: { otpId: string; bundle: string; code: string } | undefined;
    for (let round = 0; round < 2; round++) {
      const started = await init(round);
      const code = verificationCodeIn((await mail.next(contact)).parsed.text ?? "")!;
      last = { otpId: started.otpId, bundle: started.otpEncryptionTargetBundle, code };
      for (let i = 0; i < (round === 0 ? 3 : 2); i++)
        expect((await verify(last.otpId, last.bundle, wrongFor(code))).activity.status).toBe("ACTIVITY_STATUS_FAILED");
    }
    const started = await init(2);
    const code = verificationCodeIn((await mail.next(contact)).parsed.text ?? "")!;
    const refused = await verify(started.otpId, started.otpEncryptionTargetBundle, code);
    expect(refused.activity.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(refused.activity.failure?.code).toBe(8);
    expect(refused.activity.failure?.message).toContain("wrong guesses");
  });

  it.skipIf(!process.env.DATABASE_URL)("holds the budget across two servers of a cluster on one PostgreSQL", async () => {
    // Two Strongrooms on one database and key-encryption key (as two processes of a cluster would be).
    const database = await sharedPostgres();
    const env = {
      ...database.env,
      LOG_LEVEL: "silent",
      AUTH_PROXY_PORT: "0",
      SMTP_URL: mail.url,
      OTP_WRONG_GUESSES_PER_CONTACT: "5",
      OTP_CODES_PER_CONTACT: "50",
      OTP_CODES_PER_ADDRESS: "100",
    };
    const config = () => resolveConfig({ dataDir: "memory://", host: "127.0.0.1", port: 0 }, env);
    const servers: RunningServer[] = [];
    try {
      servers.push(await startServer(config()), await startServer(config()));
      const root = await initRootOrganization(servers[0]!.services, { organizationName: "Cluster", userName: "Root" });
      const asTestServer = { url: servers[0]!.url, root } as TestServer;
      await submitAsRoot(asTestServer, "enable_auth_proxy", "ACTIVITY_TYPE_ENABLE_AUTH_PROXY", {});
      const updated = await submitAsRoot(asTestServer, "update_auth_proxy_config", "ACTIVITY_TYPE_UPDATE_AUTH_PROXY_CONFIG", {
        otpLength: 6,
        otpAlphanumeric: false,
      });
      const clusterConfigId = updated.result.updateAuthProxyConfigResult!.configId as string;
      const contact = "cluster-victim@example.com";
      const send = async (url: string) => {
        const sent = await proxyPost(url, clusterConfigId, "/v1/otp_init_v2", { otpType: "OTP_TYPE_EMAIL", contact });
        expect(sent.status, JSON.stringify(sent.body)).toBe(200);
        const code = verificationCodeIn((await mail.next(contact)).parsed.text ?? "")!;
        return { otpId: sent.body.otpId as string, bundle: sent.body.otpEncryptionTargetBundle as string, code };
      };
      const guessOn = async (url: string, sent: { otpId: string; bundle: string }, code: string) => {
        const key = generateP256KeyPair();
        const encryptedOtpBundle = await encryptOtpCodeToBundle(code, sent.bundle, key.publicKey, servers[0]!.services.signer.publicKeyHex);
        return proxyPost(url, clusterConfigId, "/v1/otp_verify_v2", { otpId: sent.otpId, encryptedOtpBundle });
      };
      const urls = servers.map((s) => s.authProxyUrl!);
      // Five wrong guesses over two codes, each guess on the other server than the one before.
      let turn = 0;
      for (const guesses of [3, 2]) {
        const sent = await send(urls[turn % 2]!);
        for (let i = 0; i < guesses; i++) expect((await guessOn(urls[turn++ % 2]!, sent, wrongFor(sent.code))).status).toBe(401);
      }
      for (const url of urls) {
        const sent = await send(url);
        expectRateLimited(await guessOn(url, sent, sent.code), "wrong guesses");
      }
    } finally {
      for (const s of servers) await s.close();
      await database.drop();
    }
  });

  it("limits codes per client address (X-Forwarded-For from a trusted proxy is the client's address)", async () => {
    const limited = await proxiedServer({ OTP_CODES_PER_ADDRESS: "3", TRUST_PROXY: "127.0.0.1" }, mail);
    try {
      const init = (contact: string, address: string) =>
        proxyPost(limited.server.authProxyUrl, limited.configId, "/v1/otp_init_v2", { otpType: "OTP_TYPE_EMAIL", contact }, address);
      for (let i = 0; i < 3; i++) {
        expect((await init(`spray${i}@example.com`, "203.0.113.7")).status).toBe(200);
        await mail.next(`spray${i}@example.com`);
      }
      const refused = await init("spray3@example.com", "203.0.113.7");
      expectRateLimited(refused, "203.0.113.7");
      expect(refused.body.message).toContain("codes per client address");
      const [{ n }] = (await limited.server.services.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM otp_codes WHERE contact = 'spray3@example.com'",
      )) as [{ n: number }];
      expect(n).toBe(0);
      // Another client behind the same proxy has its own budget.
      expect((await init("spray3@example.com", "203.0.113.8")).status).toBe(200);
      await mail.next("spray3@example.com");
    } finally {
      await limited.server.close();
    }
  });

  it("limits codes per contact, counting used and locked codes too", async () => {
    const limited = await proxiedServer({ OTP_CODES_PER_CONTACT: "3", OTP_CODES_PER_ADDRESS: "100" }, mail);
    try {
      const contact = "popular@example.com";
      const guessAt = async (sent: { otpId: string; bundle: string }, code: string) => {
        const key = generateP256KeyPair();
        const encryptedOtpBundle = await encryptOtpCodeToBundle(
          code,
          sent.bundle,
          key.publicKey,
          limited.server.services.signer.publicKeyHex,
        );
        return proxyPost(limited.server.authProxyUrl, limited.configId, "/v1/otp_verify_v2", { otpId: sent.otpId, encryptedOtpBundle });
      };
      for (let i = 0; i < 3; i++) {
        const sent = await proxyPost(limited.server.authProxyUrl, limited.configId, "/v1/otp_init_v2", {
          otpType: "OTP_TYPE_EMAIL",
          contact,
        });
        expect(sent.status).toBe(200);
        const code = verificationCodeIn((await mail.next(contact)).parsed.text ?? "")!;
        // Used at once: no code of this contact stays active, so "3 active codes" alone would allow more.
        expect(
          (await guessAt({ otpId: sent.body.otpId as string, bundle: sent.body.otpEncryptionTargetBundle as string }, code)).status,
        ).toBe(200);
      }
      const refused = await proxyPost(limited.server.authProxyUrl, limited.configId, "/v1/otp_init_v2", {
        otpType: "OTP_TYPE_EMAIL",
        contact,
      });
      expectRateLimited(refused, "codes per contact");
      expect(refused.body.message).toContain(contact);
    } finally {
      await limited.server.close();
    }
  });
});

describe("the auth proxy sheds load per client address and per config", () => {
  it("answers 429 in the API's error shape with Retry-After once an address or a config is over its budget", async () => {
    const { server, configId } = await proxiedServer({
      AUTH_PROXY_REQUESTS_PER_ADDRESS: "5",
      AUTH_PROXY_REQUESTS_PER_CONFIG: "8",
      TRUST_PROXY: "127.0.0.1",
    });
    try {
      const config = () => proxyPost(server.authProxyUrl, configId, "/v1/wallet_kit_config", {}, "198.51.100.1");
      for (let i = 0; i < 5; i++) expect((await config()).status).toBe(200);
      const byAddress = await config();
      expectRateLimited(byAddress, "198.51.100.1");
      // Other addresses may still ask, until the config's own budget is spent.
      for (let i = 0; i < 3; i++)
        expect((await proxyPost(server.authProxyUrl, configId, "/v1/wallet_kit_config", {}, `198.51.100.${10 + i}`)).status).toBe(200);
      const byConfig = await proxyPost(server.authProxyUrl, configId, "/v1/wallet_kit_config", {}, "198.51.100.20");
      expectRateLimited(byConfig, configId);
    } finally {
      await server.close();
    }
  });
});

describe("unauthenticated signups have a bounded cost", () => {
  let server: TestServer;
  let configId: string;

  beforeAll(async () => {
    // The store test below polls the auth proxy as fast as it answers: more than the default 120 a minute.
    ({ server, configId } = await proxiedServer({ AUTH_PROXY_REQUESTS_PER_ADDRESS: "100000" }));
  });
  afterAll(async () => {
    await server?.close();
  });

  const ethereumAccounts = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      curve: "CURVE_SECP256K1",
      pathFormat: "PATH_FORMAT_BIP32",
      path: `m/44'/60'/0'/0/${i}`,
      addressFormat: "ADDRESS_FORMAT_ETHEREUM",
    }));

  it("refuses a signup wallet with more accounts than the limit (400 naming it), creating nothing", async () => {
    const before = await server.services.db.query<{ n: number }>("SELECT count(*)::int AS n FROM organizations");
    const answer = await proxyPost(server.authProxyUrl, configId, "/v1/signup_v2", {
      userName: "greedy",
      apiKeys: [{ apiKeyName: "k", publicKey: generateP256KeyPair().publicKey, curveType: "API_KEY_CURVE_P256" }],
      wallet: { walletName: "big", accounts: ethereumAccounts(500) },
    });
    expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(400);
    expect(answer.body.code).toBe(3);
    expect(answer.body.message).toContain("wallet.accounts");
    expect(answer.body.message).toContain("at most 10");
    expect(await server.services.db.query("SELECT count(*)::int AS n FROM organizations")).toEqual(before);
    // At the limit it works.
    const ok = await proxyPost(server.authProxyUrl, configId, "/v1/signup_v2", {
      userName: "modest",
      apiKeys: [{ apiKeyName: "k", publicKey: generateP256KeyPair().publicKey, curveType: "API_KEY_CURVE_P256" }],
      wallet: { walletName: "small", accounts: ethereumAccounts(10) },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect((ok.body.wallet as { addresses: string[] }).addresses).toHaveLength(10);
  });

  it("refuses signups with more API keys, authenticators or OAuth providers than one user may hold", async () => {
    const key = () => ({ apiKeyName: `k${Math.random()}`, publicKey: generateP256KeyPair().publicKey, curveType: "API_KEY_CURVE_P256" });
    const many = await proxyPost(server.authProxyUrl, configId, "/v1/signup_v2", {
      userName: "hoarder",
      apiKeys: Array.from({ length: 21 }, key),
    });
    expect(many.status, JSON.stringify(many.body)).toBe(400);
    expect(many.body.message).toContain("apiKeys");
    const providers = Array.from({ length: 11 }, (_, i) => ({
      providerName: `p${i}`,
      oidcClaims: { iss: "https://issuer.example", sub: `s${i}`, aud: "a" },
    }));
    const manyProviders = await proxyPost(server.authProxyUrl, configId, "/v1/signup_v2", {
      userName: "collector",
      oauthProviders: providers,
    });
    expect(manyProviders.status, JSON.stringify(manyProviders.body)).toBe(400);
    expect(manyProviders.body.message).toContain("oauthProviders");
  });

  it("does not hold the store while a large wallet is derived: cheap requests complete meanwhile", async () => {
    const heldClaims = async () =>
      (await server.services.db.query<{ fingerprint: string }>("SELECT fingerprint FROM activity_claims WHERE refusal IS NULL")).map(
        (row) => row.fingerprint,
      );
    const claimedBefore = new Set(await heldClaims());
    // 300 Ethereum accounts through the API (create_wallet allows 500): seconds of derivation.
    let done = false;
    const big = server
      .client()
      .createWallet({ walletName: "big wallet", accounts: ethereumAccounts(300) as never })
      .finally(() => (done = true));
    // The wallet's body is claimed before its derivation starts, and released in the transaction that stores it.
    let claim: string | undefined;
    await vi.waitFor(
      async () => {
        claim = (await heldClaims()).find((fingerprint) => !claimedBefore.has(fingerprint));
        if (!claim) throw new Error("the big wallet's preparation has not started");
      },
      { timeout: 60_000, interval: 5 },
    );
    for (let round = 0; round < 5; round++) {
      // A cheap authenticated query (it reads the store) and a cheap auth proxy request.
      await server.client().getWhoami({ organizationId: server.root.organizationId });
      const answer = await proxyPost(server.authProxyUrl, configId, "/v1/wallet_kit_client_params", {});
      expect(answer.status).toBe(200);
    }
    // All five rounds completed while the claim was held, so while the wallet was being prepared.
    expect(done).toBe(false);
    expect(await heldClaims()).toContain(claim);
    const created = await big;
    expect(created.addresses).toHaveLength(300);
    expect(await heldClaims()).not.toContain(claim);
  });
});

describe("budget events are pruned once no window can count them", () => {
  let mail: Awaited<ReturnType<typeof startMailReceiver>>;
  let server: TestServer;
  let configId: string;
  let offsetMs = 0;
  const WINDOW_SECONDS = 600;

  beforeAll(async () => {
    mail = await startMailReceiver();
    ({ server, configId } = await proxiedServer(
      { OTP_RATE_WINDOW_SECONDS: String(WINDOW_SECONDS), OTP_CODES_PER_CONTACT: "2", OTP_CODES_PER_ADDRESS: "100" },
      mail,
      () => new Date(Date.now() + offsetMs),
    ));
  });
  afterAll(async () => {
    await server?.close();
    await mail?.close();
  });

  const eventsOf = async (contact: string) =>
    (
      await server.services.db.query<{ n: number }>("SELECT count(*)::int AS n FROM rate_limit_events WHERE key LIKE $1", [`%:${contact}`])
    )[0]!.n;

  async function sendCode(contact: string) {
    const answer = await proxyPost(server.authProxyUrl, configId, "/v1/otp_init_v2", { otpType: "OTP_TYPE_EMAIL", contact });
    if (answer.status === 200) await mail.next(contact);
    return answer;
  }

  it("removes a contact's events past the window and spent proofs past their expiry in the background, and keeps counting within the window", async () => {
    // A contact that asks for a code once and never again: its events are never counted again.
    expect((await sendCode("once@example.com")).status).toBe(200);
    expect(await eventsOf("once@example.com")).toBe(1);

    // And many contacts like it (as a flood of one-off contacts leaves them): more than one batch of the sweep.
    await server.services.db.query(
      "INSERT INTO rate_limit_events (key, at) SELECT 'otp-contact:flood:' || i || '@example.com', $1 FROM generate_series(1, 2500) AS i",
      [new Date(server.services.clock().getTime() - 1000)],
    );

    // Spent proofs: one whose token expires before the clock moves, one that outlives it.
    const soon = new Date(server.services.clock().getTime() + 1000);
    const later = new Date(server.services.clock().getTime() + 3600_000);
    for (const [id, expiresAt] of [
      ["expiring", soon],
      ["living", later],
    ] as const) {
      await server.services.db.query(
        "INSERT INTO consumed_verification_tokens (token_id, usage, organization_id, consumed_at, expires_at) VALUES ($1, 'login', $2, $3, $4)",
        [id, server.root.organizationId, server.services.clock(), expiresAt],
      );
      await server.services.db.query(
        "INSERT INTO spent_oidc_tokens (token_key, usage, organization_id, spent_at, expires_at) VALUES ($1, 'login', $2, $3, $4)",
        [id, server.root.organizationId, server.services.clock(), expiresAt],
      );
    }
    const spentProofs = async () =>
      (
        await server.services.db.query<{ id: string }>(
          "SELECT token_id AS id FROM consumed_verification_tokens UNION ALL SELECT token_key FROM spent_oidc_tokens ORDER BY 1",
        )
      ).map((row) => row.id);
    expect(await spentProofs()).toEqual(["expiring", "expiring", "living", "living"]);

    offsetMs += (WINDOW_SECONDS + 1) * 1000; // the server's clock, not a sleep
    // A moved clock wakes the background loops, as the dev server's clock control does: an idle loop on the embedded
    // store would otherwise look again only a minute later (src/server/start.ts).
    server.services.webhooks.wake();
    expect((await sendCode("regular@example.com")).status).toBe(200);
    // The sweep runs in the background: the stale contact's events go, the one inside the window stays.
    await vi.waitFor(async () => expect(await eventsOf("once@example.com")).toBe(0), { timeout: 15_000, interval: 100 });
    expect(await eventsOf("regular@example.com")).toBe(1);
    await vi.waitFor(async () => expect(await eventsOf("%@example.com")).toBe(1), { timeout: 15_000, interval: 100 });
    // Spent proofs go once their token has expired (it is refused as expired before its spend is looked up).
    await vi.waitFor(async () => expect(await spentProofs()).toEqual(["living", "living"]), { timeout: 15_000, interval: 100 });

    // Within the window the budget still counts (2 codes per contact): the third is refused.
    expect((await sendCode("regular@example.com")).status).toBe(200);
    expectRateLimited(await sendCode("regular@example.com"), "codes");
    expect(await eventsOf("regular@example.com")).toBe(2);
  }, 60_000);
});
