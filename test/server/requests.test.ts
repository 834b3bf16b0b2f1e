import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activityBody, p256Stamp, post } from "../helpers/requests.js";
import { createXCredential, startCountingOAuthProvider, type CountingOAuthProvider } from "../helpers/counting-oauth-provider.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { encryptedWalletForRootUser } from "../helpers/wallet-import.js";
import { ETHEREUM_ACCOUNT } from "../helpers/wallet-accounts.js";

describe("request handling", () => {
  let server: TestServer;
  const activityCount = async () =>
    Number((await server.services.db.query<{ n: number }>("SELECT count(*)::int AS n FROM activities"))[0]!.n);
  const signed = (body: string) => ({ "X-Stamp": p256Stamp(body, server.root.apiPublicKey, server.root.apiPrivateKey!) });
  const submit = (op: string, body: string) => post(`${server.url}/public/v1/submit/${op}`, body, signed(body));

  // oauth2_authenticate prepares outside its transaction by redeeming a code at the provider: a body looked up
  // before preparing is never prepared again, which the provider's count of token calls shows.
  let provider: CountingOAuthProvider;
  let oauth2CredentialId: string;
  const REDIRECT_URI = "https://app.example/oauth/callback";
  const oauthBody = async () =>
    activityBody("ACTIVITY_TYPE_OAUTH2_AUTHENTICATE", server.root.organizationId, {
      oauth2CredentialId,
      ...(await provider.authorize("requests-test-client", REDIRECT_URI)),
      redirectUri: REDIRECT_URI,
      nonce: "ab".repeat(32),
    });

  beforeAll(async () => {
    provider = await startCountingOAuthProvider(0);
    server = await startTestServer({ env: provider.env });
    oauth2CredentialId = await createXCredential(server, "requests-test-client");
  });
  afterAll(async () => {
    await server?.close();
    await provider?.stop();
  });

  it("treats the same body twice as one activity", async () => {
    const before = await activityCount();
    const body = activityBody("ACTIVITY_TYPE_CREATE_USER_TAG", server.root.organizationId, { userTagName: "once", userIds: [] });
    const first = await submit("create_user_tag", body);
    const second = await submit("create_user_tag", body);
    expect(first.status).toBe(200);
    const a = first.json.activity as { id: string; fingerprint: string; status: string };
    expect((second.json.activity as { id: string }).id).toBe(a.id);
    expect(a.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(await activityCount()).toBe(before + 1);
    const tags = await server.services.db.query("SELECT id FROM user_tags WHERE name = 'once'");
    expect(tags).toHaveLength(1);

    // A body that prepares: the second send is answered from the look-up, before any preparation.
    const oauth = await oauthBody();
    const callsBefore = provider.tokenCalls();
    const prepared = await submit("oauth2_authenticate", oauth);
    const again = await submit("oauth2_authenticate", oauth);
    expect((prepared.json.activity as { status: string }).status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect((again.json.activity as { id: string }).id).toBe((prepared.json.activity as { id: string }).id);
    expect(provider.tokenCalls() - callsBefore).toBe(1);
  });

  it("answers a resubmitted body with its activity even when running it again would now be refused", async () => {
    // An import consumes the pending import key; after a new init_import_wallet the old bundle no longer
    // decrypts (400). The same body again is still the same, completed activity.
    const { userId, encryptedBundle } = await encryptedWalletForRootUser(server);
    const body = activityBody("ACTIVITY_TYPE_IMPORT_WALLET", server.root.organizationId, {
      userId,
      walletName: "imported once",
      encryptedBundle,
      accounts: [ETHEREUM_ACCOUNT],
    });
    const first = await submit("import_wallet", body);
    expect(first.status).toBe(200);
    expect((first.json.activity as { status: string }).status).toBe("ACTIVITY_STATUS_COMPLETED");
    await server.client().initImportWallet({ userId });
    const before = await activityCount();

    const again = await submit("import_wallet", body);
    expect(again.status).toBe(200);
    expect((again.json.activity as { id: string }).id).toBe((first.json.activity as { id: string }).id);
    expect(await activityCount()).toBe(before);
    expect(await server.services.db.query("SELECT 1 FROM import_keys WHERE user_id = $1", [userId])).toHaveLength(1);

    // A spent authorization code: preparing the body again would be refused by the provider. It is not asked.
    const oauth = await oauthBody();
    const redeemed = await submit("oauth2_authenticate", oauth);
    expect((redeemed.json.activity as { status: string }).status).toBe("ACTIVITY_STATUS_COMPLETED");
    const callsAfterRedeeming = provider.tokenCalls();
    const resubmitted = await submit("oauth2_authenticate", oauth);
    expect(resubmitted.status).toBe(200);
    expect((resubmitted.json.activity as { id: string }).id).toBe((redeemed.json.activity as { id: string }).id);
    expect(provider.tokenCalls()).toBe(callsAfterRedeeming);
  });

  it("refuses a type that does not match the path with 400 naming `type`, writing nothing", async () => {
    const before = await activityCount();
    const { status, json } = await submit(
      "create_user_tag",
      activityBody("ACTIVITY_TYPE_DELETE_USERS", server.root.organizationId, { userIds: ["x"] }),
    );
    expect(status).toBe(400);
    expect(json.code).toBe(3);
    expect(json.message).toContain("type");
    expect(await activityCount()).toBe(before);
  });

  it("refuses parameters that break the schema with 400 and field violations, writing nothing", async () => {
    const before = await activityCount();
    const body = activityBody("ACTIVITY_TYPE_CREATE_API_KEYS_V2", server.root.organizationId, {
      userId: server.root.userId,
      apiKeys: [{ apiKeyName: "k", publicKey: "02ab", curveType: "API_KEY_CURVE_NOPE" }],
    });
    const { status, json } = await submit("create_api_keys", body);
    expect(status).toBe(400);
    expect(json.code).toBe(3);
    expect(json.details).toContainEqual({
      "@type": "type.googleapis.com/google.rpc.BadRequest",
      fieldViolations: expect.arrayContaining([expect.objectContaining({ field: "parameters.apiKeys[0].curveType" })]),
    });
    expect(await activityCount()).toBe(before);
  });

  it("refuses a body that is not JSON with 400", async () => {
    const { status, json } = await post(`${server.url}/public/v1/query/whoami`, "{not json", {});
    expect(status).toBe(400);
    expect(json.message).toContain("not valid JSON");
  });

  it("answers an unknown operation with 404 in the error shape", async () => {
    const body = JSON.stringify({ organizationId: server.root.organizationId });
    const { status, json } = await post(`${server.url}/public/v1/query/no_such_query`, body, signed(body));
    expect(status).toBe(404);
    expect(json).toMatchObject({ code: 5, message: expect.stringContaining("no_such_query"), details: expect.any(Array) });
  });

  it("answers an oversized body with 413 in the error shape", async () => {
    const body = JSON.stringify({ organizationId: server.root.organizationId, padding: "x".repeat(3 * 1024 * 1024) });
    const { status, json } = await post(`${server.url}/public/v1/query/whoami`, body, {});
    expect(status).toBe(413);
    expect(json).toMatchObject({ code: 8, message: expect.stringContaining("larger than the limit") });
  });

  it("serves a base URL with a trailing slash (doubled slash) without redirecting", async () => {
    const body = JSON.stringify({ organizationId: server.root.organizationId });
    const { status, json } = await post(`${server.url}//public/v1/query/whoami`, body, signed(body));
    expect(status).toBe(200);
    expect(json.userId).toBe(server.root.userId);
  });

  it("answers CORS preflights for the headers the browser SDKs send", async () => {
    const headers =
      "content-type,x-stamp,x-stamp-webauthn,x-stamp-attested,x-session,x-client-version,x-auth-proxy-config-id,x-captcha-token";
    const response = await fetch(`${server.url}/public/v1/submit/create_users`, {
      method: "OPTIONS",
      headers: { Origin: "https://app.example.com", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": headers },
    });
    expect(response.status).toBeLessThan(300);
    expect(response.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    const allowed = (response.headers.get("access-control-allow-headers") ?? "")
      .toLowerCase()
      .split(",")
      .map((h) => h.trim());
    for (const header of headers.split(",")) expect(allowed).toContain(header);
  });

  it("serves /health with the version, and no /metrics on the public port", async () => {
    const health = await fetch(`${server.url}/health`);
    expect(await health.json()).toMatchObject({ status: "ok", version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
  });

  it("serves an OpenAPI document of every registered operation", async () => {
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      paths: Record<
        string,
        {
          post: {
            requestBody: {
              content: { "application/json": { schema: { properties: Record<string, { properties?: Record<string, unknown> }> } } };
            };
          };
        }
      >;
    };
    const { activityDefinitions } = await import("../../src/pipeline/registry.js");
    const { queryDefinitions } = await import("../../src/pipeline/registry.js");
    const { strongroomQueries } = await import("../../src/server/strongroom-queries.js");
    expect(Object.keys(document.paths)).toHaveLength(activityDefinitions.length + queryDefinitions.length + strongroomQueries.length);
    expect(document.paths["/strongroom/v1/query/dry_run_activity"]).toBeDefined();
    const createUsers = document.paths["/public/v1/submit/create_users"]!.post.requestBody.content["application/json"].schema;
    expect(Object.keys(createUsers.properties.parameters!.properties!)).toEqual(["users"]);
  });

  it("publishes the signer public key", async () => {
    const keys = (await (await fetch(`${server.url}/public/v1/discovery/keys`)).json()) as { signerPublicKey: string };
    expect(keys.signerPublicKey).toBe(server.root.signerPublicKey);
    expect(keys.signerPublicKey).toMatch(/^04[0-9a-f]{128}$/);
  });
});
