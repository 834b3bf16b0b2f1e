import { generateP256KeyPair } from "@turnkey/crypto";
import { Turnkey } from "@turnkey/sdk-server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startDevServer, type DevServer } from "../../src/dev/start-dev-server.js";

const client = (dev: DevServer, key = { apiPublicKey: dev.apiPublicKey, apiPrivateKey: dev.apiPrivateKey }) =>
  new Turnkey({ apiBaseUrl: dev.baseUrl, ...key, defaultOrganizationId: dev.organizationId }).apiClient();

/** The dev controls answer local tools only: they must send X-Strongroom-Dev (test/security/dev-controls.test.ts). */
const DEV_HEADER = { "x-strongroom-dev": "1" };

const post = (dev: DevServer, path: string, body?: unknown) =>
  fetch(`${dev.baseUrl}${path}`, {
    method: "POST",
    headers: { ...DEV_HEADER, "content-type": "application/json" },
    body: JSON.stringify(body ?? {}),
  });
const get = (dev: DevServer, path: string) => fetch(`${dev.baseUrl}${path}`, { headers: DEV_HEADER });

describe("the dev server", () => {
  let dev: DevServer;
  const pinned = generateP256KeyPair();
  const organizationId = "6f1f2c1e-1111-4222-8333-444455556666";

  beforeAll(async () => {
    dev = await startDevServer({
      organizationId,
      apiPrivateKey: pinned.privateKey,
      authProxyPort: 0,
      logLevel: "silent",
      seed: {
        userTags: ["admins"],
        users: [{ userName: "alice", userEmail: "alice@example.com", userTags: ["{{userTags.admins}}"] }],
        wallets: [
          {
            walletName: "Main",
            accounts: [
              {
                curve: "CURVE_SECP256K1",
                pathFormat: "PATH_FORMAT_BIP32",
                path: "m/44'/60'/0'/0/0",
                addressFormat: "ADDRESS_FORMAT_ETHEREUM",
              },
            ],
          },
        ],
        privateKeyTags: ["hot"],
        policies: [
          {
            policyName: "alice signs",
            effect: "EFFECT_ALLOW",
            consensus: "approvers.any(user, user.id == '{{users.alice}}')",
            condition: "activity.resource == 'WALLET'",
            notes: "",
          },
        ],
      },
    });
  }, 180_000);
  afterAll(() => dev?.close());

  it("uses the pinned organization id and API key, enables the auth proxy, and prints .env lines", async () => {
    expect(dev.organizationId).toBe(organizationId);
    expect(dev.apiPublicKey).toBe(pinned.publicKey);
    expect((await client(dev).getWhoami({})).organizationId).toBe(organizationId);
    const lines = Object.fromEntries(
      dev
        .envLines()
        .trim()
        .split("\n")
        .map((line) => line.split("=") as [string, string]),
    );
    expect(Object.keys(lines)).toEqual([
      "ORGANIZATION_ID",
      "API_PUBLIC_KEY",
      "API_PRIVATE_KEY",
      "BASE_URL",
      "SIGNER_PUBLIC_KEY",
      "AUTH_PROXY_URL",
      "AUTH_PROXY_CONFIG_ID",
    ]);
    expect(lines.API_PRIVATE_KEY).toBe(pinned.privateKey);
    expect(lines.BASE_URL).toBe(dev.baseUrl);
    expect(lines.AUTH_PROXY_CONFIG_ID).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("applies the seed through the API: tags, users, wallets, policies naming what was created before", async () => {
    const api = client(dev);
    const { users } = await api.getUsers({});
    const alice = users.find((u) => u.userName === "alice")!;
    expect(alice.userEmail).toBe("alice@example.com");
    expect(alice.userTags).toHaveLength(1);
    const { wallets } = await api.getWallets({});
    expect(wallets.map((w) => w.walletName)).toEqual(["Main"]);
    const { policies } = await api.getPolicies({});
    expect(policies.find((p) => p.policyName === "alice signs")?.consensus).toContain(alice.userId);
  });

  it("keeps one-time codes in the inbox instead of refusing them for want of SMTP", async () => {
    await client(dev).initOtp({ otpType: "OTP_TYPE_EMAIL", contact: "bob@example.com", appName: "Acme" } as Parameters<
      ReturnType<Turnkey["apiClient"]>["initOtp"]
    >[0]);
    const answer = await get(dev, "/dev/inbox?to=bob@example.com");
    const { messages } = (await answer.json()) as { messages: { channel: string; to: string; text: string }[] };
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ channel: "EMAIL", to: "bob@example.com" });
    expect(messages[0]!.text).toMatch(/\d{6}|[A-Z0-9]{6,}/);
  });

  it("moves the clock: an API key expires as the time passes, and a bad request gets the error shape", async () => {
    const api = client(dev);
    const short = generateP256KeyPair();
    await api.createApiKeys({
      userId: dev.userId,
      apiKeys: [{ apiKeyName: "short", publicKey: short.publicKey, curveType: "API_KEY_CURVE_P256", expirationSeconds: "60" }],
    });
    const shortLived = client(dev, { apiPublicKey: short.publicKey, apiPrivateKey: short.privateKey });
    expect((await shortLived.getWhoami({})).userId).toBe(dev.userId);

    const moved = await post(dev, "/dev/clock", { advanceSeconds: 120 });
    expect(moved.status).toBe(200);
    expect(((await moved.json()) as { offsetSeconds: number }).offsetSeconds).toBe(120);
    await expect(shortLived.getWhoami({})).rejects.toThrow(/expired/);
    const { apiKeys } = await api.getApiKeys({ userId: dev.userId });
    expect(apiKeys.map((k) => k.apiKeyName)).not.toContain("short");

    const bad = await post(dev, "/dev/clock", { advanceSeconds: -5 });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 3, message: expect.stringContaining("advanceSeconds") });
  });

  it("moving the clock wakes the background work: budget events past their window are swept at once", async () => {
    const db = dev.services.db;
    const events = async () =>
      Number((await db.query<{ n: string }>("SELECT count(*)::text AS n FROM rate_limit_events WHERE key = 'dev-clock-sweep'"))[0]!.n);
    await db.query("INSERT INTO rate_limit_events (key, at) VALUES ('dev-clock-sweep', $1)", [dev.clock.now()]);
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // the loop, done with its own passes, waits: idle
    expect(await events()).toBe(1);
    // Two windows of the longest budget later (an hour by default), the event is dead: the sweep, woken, deletes it.
    expect((await post(dev, "/dev/clock", { advanceSeconds: 2 * 3600 + 60 })).status).toBe(200);
    await vi.waitFor(async () => expect(await events()).toBe(0), { timeout: 5_000, interval: 50 });
  });

  it("resets to the seeded state: later changes, the inbox and the clock", async () => {
    const api = client(dev);
    await api.createWallet({ walletName: "Later", accounts: [] });
    expect((await api.getWallets({})).wallets).toHaveLength(2);

    const reset = await post(dev, "/dev/reset");
    expect(reset.status).toBe(200);
    expect((await api.getWallets({})).wallets.map((w) => w.walletName)).toEqual(["Main"]);
    expect(((await (await get(dev, "/dev/inbox")).json()) as { messages: unknown[] }).messages).toEqual([]);
    expect(((await (await get(dev, "/dev/clock")).json()) as { offsetSeconds: number }).offsetSeconds).toBe(0);
    // The same credentials still work, and the store still takes writes.
    await api.createWallet({ walletName: "After reset", accounts: [] });
    expect((await api.getWallets({})).wallets).toHaveLength(2);
  });
});
