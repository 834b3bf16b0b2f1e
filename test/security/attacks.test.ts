import { generateP256KeyPair } from "@turnkey/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryDefinitions } from "../../src/pipeline/registry.js";
import { refusal } from "../helpers/refusal.js";
import { activityBody, p256Stamp, post } from "../helpers/requests.js";
import { rowCounts } from "../helpers/row-counts.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ETHEREUM_ACCOUNT } from "../helpers/wallet-accounts.js";
import { userWithApiKey } from "../helpers/users.js";

type Key = { publicKey: string; privateKey: string };

/** The tables that hold what activities create; a refused or failed request must leave them as they were. */
const objects = (counts: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(counts).filter(([table]) => !["activities", "votes", "policy_evaluations", "webhook_deliveries"].includes(table)),
  );

/** Identifiers a client might send to reach outside its own records: traversal, encodings, NUL, LIKE and SQL metacharacters, sheer length. */
const HOSTILE_IDS = [
  "../",
  "../../etc/passwd",
  "%2e%2e%2f",
  "..%2F..%2F",
  "a\u0000b",
  "%",
  "_",
  "*",
  "' OR '1'='1",
  "'; DROP TABLE wallets; --",
  "x".repeat(100_000),
  "😀",
  " ",
];

describe("attacks: each refused with the right code, changing nothing", () => {
  let server: TestServer;
  let now = Date.now();
  const root = (): Key => ({ publicKey: server.root.apiPublicKey, privateKey: server.root.apiPrivateKey! });
  const send = (path: string, body: string, key: Key = root(), headers: Record<string, string> = {}) =>
    post(`${server.url}${path}`, body, { "X-Stamp": p256Stamp(body, key.publicKey, key.privateKey), ...headers });
  const timestamp = () => String(now);

  /** A non-root user of the root organization with an API key. */
  let mallory: { userId: string; key: Key };
  let walletId: string;
  let alice: { organizationId: string; key: Key };
  let bob: { organizationId: string; key: Key };

  beforeAll(async () => {
    server = await startTestServer({ clock: () => new Date(now) });
    const key = generateP256KeyPair();
    const { userIds } = await server.client().createUsers({ users: [{ ...userWithApiKey("mallory", key.publicKey), userTags: [] }] });
    mallory = { userId: userIds[0]!, key: { publicKey: key.publicKey, privateKey: key.privateKey } };
    walletId = (await server.client().createWallet({ walletName: "treasury", accounts: [ETHEREUM_ACCOUNT] })).walletId;
    const sub = async (name: string) => {
      const pair = generateP256KeyPair();
      const created = await server
        .client()
        .createSubOrganization({ subOrganizationName: name, rootQuorumThreshold: 1, rootUsers: [userWithApiKey(name, pair.publicKey)] });
      return { organizationId: created.subOrganizationId, key: { publicKey: pair.publicKey, privateKey: pair.privateKey } };
    };
    alice = await sub("alice");
    bob = await sub("bob");
  });
  afterAll(async () => server.close());

  it("refuses a replayed stamp once its timestamp is outside the liveness window; within it, a replay is the same activity", async () => {
    const body = activityBody(
      "ACTIVITY_TYPE_CREATE_USER_TAG",
      server.root.organizationId,
      { userTagName: "replayed", userIds: [] },
      timestamp(),
    );
    const first = await send("/public/v1/submit/create_user_tag", body);
    expect(first.status).toBe(200);
    const before = await rowCounts(server.services.db);
    const again = await send("/public/v1/submit/create_user_tag", body);
    expect((again.json.activity as { id: string }).id).toBe((first.json.activity as { id: string }).id);
    expect(await rowCounts(server.services.db)).toEqual(before);
    now += 61 * 60 * 1000;
    try {
      const late = await send("/public/v1/submit/create_user_tag", body);
      expect(late.status).toBe(401);
      expect(late.json).toMatchObject({ code: 16, message: expect.stringMatching(/more than one hour old/) });
      expect(await rowCounts(server.services.db)).toEqual(before);
    } finally {
      now = Date.now();
    }
  });

  it("refuses a stamp made for one body when sent with another body or to another operation", async () => {
    const signedBody = activityBody(
      "ACTIVITY_TYPE_CREATE_USER_TAG",
      server.root.organizationId,
      { userTagName: "harmless", userIds: [] },
      timestamp(),
    );
    const stamp = p256Stamp(signedBody, root().publicKey, root().privateKey);
    const before = await rowCounts(server.services.db);
    const harmful = activityBody("ACTIVITY_TYPE_DELETE_USERS", server.root.organizationId, { userIds: [mallory.userId] }, timestamp());
    for (const [path, body] of [
      ["/public/v1/submit/delete_users", harmful],
      ["/public/v1/submit/create_user_tag", signedBody.replace("harmless", "harmful!")],
      ["/public/v1/submit/delete_users", signedBody],
    ] as const) {
      const { status, json } = await post(`${server.url}${path}`, body, { "X-Stamp": stamp });
      expect(status === 401 || status === 400, `${path}: ${status} ${JSON.stringify(json)}`).toBe(true);
      expect(json).toEqual({ code: expect.any(Number), message: expect.any(String), details: expect.any(Array) });
    }
    expect(await rowCounts(server.services.db)).toEqual(before);
  });

  it("keeps organizations apart: sibling and child → parent refused (401), parent → child read-only (403 on writes)", async () => {
    const before = await rowCounts(server.services.db);
    const whoami = (organizationId: string) => JSON.stringify({ organizationId });
    const tag = (organizationId: string) =>
      activityBody("ACTIVITY_TYPE_CREATE_USER_TAG", organizationId, { userTagName: "intruder", userIds: [] }, timestamp());
    const deleteWallet = activityBody(
      "ACTIVITY_TYPE_DELETE_WALLETS",
      server.root.organizationId,
      { walletIds: [walletId], deleteWithoutExport: true },
      timestamp(),
    );
    for (const [who, key, organizationId] of [
      ["alice on her sibling bob", alice.key, bob.organizationId],
      ["alice on her parent", alice.key, server.root.organizationId],
    ] as const) {
      const read = await send("/public/v1/query/whoami", whoami(organizationId), key);
      if (organizationId === bob.organizationId) {
        expect(read.status, who).toBe(401);
        expect(read.json.message, who).toMatch(/could not find public key/);
      } else {
        // whoami naming the parent answers where the credential is (what the browser SDKs rely on), and only that.
        expect(read.status, who).toBe(200);
        expect(read.json.organizationId, who).toBe(alice.organizationId);
      }
      expect((await send("/public/v1/submit/create_user_tag", tag(organizationId), key)).status, who).toBe(401);
    }
    expect((await send("/public/v1/submit/delete_wallets", deleteWallet, alice.key)).status).toBe(401);
    // The documented exception: the parent reads its sub-organizations, and only reads.
    expect((await server.client(undefined, alice.organizationId).getUsers({})).users.map((u) => u.userName)).toEqual(["alice"]);
    const write = await send("/public/v1/submit/create_user_tag", tag(alice.organizationId));
    expect(write.status).toBe(403);
    expect(write.json).toMatchObject({ code: 7, message: expect.stringContaining("read-only") });
    const takeover = await send(
      "/public/v1/submit/create_api_keys",
      activityBody(
        "ACTIVITY_TYPE_CREATE_API_KEYS_V2",
        alice.organizationId,
        {
          userId: server.root.userId,
          apiKeys: [{ apiKeyName: "x", publicKey: generateP256KeyPair().publicKey, curveType: "API_KEY_CURVE_P256" }],
        },
        timestamp(),
      ),
    );
    expect([403, 400, 404]).toContain(takeover.status);
    expect(await rowCounts(server.services.db)).toEqual(before);
  });

  it("refuses a deleted key and an expired key (401), writing nothing", async () => {
    const pair = generateP256KeyPair();
    const expiring = generateP256KeyPair();
    await server.client().createApiKeys({
      userId: server.root.userId,
      apiKeys: [
        { apiKeyName: "doomed", publicKey: pair.publicKey, curveType: "API_KEY_CURVE_P256" },
        { apiKeyName: "brief", publicKey: expiring.publicKey, curveType: "API_KEY_CURVE_P256", expirationSeconds: "60" },
      ],
    });
    const doomed = { publicKey: pair.publicKey, privateKey: pair.privateKey };
    const brief = { publicKey: expiring.publicKey, privateKey: expiring.privateKey };
    expect((await send("/public/v1/query/whoami", JSON.stringify({ organizationId: server.root.organizationId }), doomed)).status).toBe(
      200,
    );
    const { apiKeys } = await server.client().getApiKeys({ userId: server.root.userId });
    await server
      .client()
      .deleteApiKeys({ userId: server.root.userId, apiKeyIds: apiKeys.filter((k) => k.apiKeyName === "doomed").map((k) => k.apiKeyId) });
    const before = await rowCounts(server.services.db);
    const body = activityBody(
      "ACTIVITY_TYPE_CREATE_USER_TAG",
      server.root.organizationId,
      { userTagName: "ghost", userIds: [] },
      timestamp(),
    );
    expect((await send("/public/v1/submit/create_user_tag", body, doomed)).json).toMatchObject({ code: 16 });
    now += 2 * 60 * 1000;
    try {
      const late = activityBody(
        "ACTIVITY_TYPE_CREATE_USER_TAG",
        server.root.organizationId,
        { userTagName: "ghost", userIds: [] },
        timestamp(),
      );
      const expired = await send("/public/v1/submit/create_user_tag", late, brief);
      expect(expired.status).toBe(401);
      expect(expired.json.message).toMatch(/expired/);
    } finally {
      now = Date.now();
    }
    expect(await rowCounts(server.services.db)).toEqual(before);
  });

  it("refuses an oversized activity body (413) and deeply nested JSON (400), never crashing, writing nothing", async () => {
    const before = await rowCounts(server.services.db);
    const big = activityBody(
      "ACTIVITY_TYPE_CREATE_USER_TAG",
      server.root.organizationId,
      { userTagName: "x".repeat(3 * 1024 * 1024), userIds: [] },
      timestamp(),
    );
    expect((await send("/public/v1/submit/create_user_tag", big)).status).toBe(413);
    for (const depth of [33, 1_000, 500_000]) {
      const nested = "[".repeat(depth) + "]".repeat(depth);
      const body = `{"type":"ACTIVITY_TYPE_CREATE_USER_TAG","timestampMs":"${timestamp()}","organizationId":"${server.root.organizationId}","parameters":{"userTagName":"deep","userIds":${nested}}}`;
      const { status, json } = await send("/public/v1/submit/create_user_tag", body);
      expect(status, `depth ${depth}`).toBe(400);
      expect(json.message).toMatch(/nested deeper than 32 levels/);
      const query = await send("/public/v1/query/get_wallet", `{"organizationId":"${server.root.organizationId}","walletId":${nested}}`);
      expect(query.status, `query depth ${depth}`).toBe(400);
    }
    expect((await fetch(`${server.url}/health`)).ok).toBe(true);
    expect(await rowCounts(server.services.db)).toEqual(before);
  });

  it("answers injection in every query's identifiers with 400 or 404 (or an empty list), never a 5xx or another record", async () => {
    let tried = 0;
    for (const definition of queryDefinitions) {
      const properties = (definition.body as unknown as { properties: Record<string, { type?: string }> }).properties;
      const idFields = Object.keys(properties).filter((name) => /Ids?$/.test(name) && name !== "organizationId");
      for (const field of idFields) {
        for (const id of HOSTILE_IDS) {
          tried++;
          const value = properties[field]!.type === "array" ? [id] : id;
          const { status, json } = await send(
            `/public/v1/query/${definition.operation}`,
            JSON.stringify({ organizationId: server.root.organizationId, [field]: value }),
          );
          const context = `${definition.operation}.${field} = ${JSON.stringify(id).slice(0, 40)}: ${status} ${JSON.stringify(json).slice(0, 300)}`;
          expect(status, context).toBeLessThan(500);
          if (status === 200) {
            // A list filtered by a hostile id finds nothing; a wildcard must not match everything.
            expect(JSON.stringify(json), context).not.toContain(walletId);
          } else {
            expect([400, 404], context).toContain(status);
            expect(json, context).toEqual({ code: expect.any(Number), message: expect.any(String), details: expect.any(Array) });
          }
        }
      }
    }
    expect(tried).toBeGreaterThan(100);
    process.stdout.write(`[attacks] hostile identifiers sent to queries: ${tried}\n`);
    // The organization id itself, and the operation in the path.
    for (const id of HOSTILE_IDS) {
      const { status } = await send("/public/v1/query/whoami", JSON.stringify({ organizationId: id }));
      expect([400, 401, 404], JSON.stringify(id).slice(0, 40)).toContain(status);
    }
    for (const path of [
      "/public/v1/query/..%2f..%2fhealth",
      "/public/v1/query/%2e%2e/whoami",
      "/public/v1/submit/create_users%00",
      "/public/v1/submit/..%5cdelete_users",
      "/public/v1/query/%E0%A4%A",
      `/public/v1/query/${"a".repeat(5000)}`,
    ]) {
      const { status, json } = await send(path, JSON.stringify({ organizationId: server.root.organizationId }));
      // Unknown operations are 404, a malformed path 400, a path segment over the router's length limit 414; all in the error shape.
      expect([400, 404, 414], path.slice(0, 60)).toContain(status);
      expect(json, path.slice(0, 60)).toEqual({ code: status === 404 ? 5 : 3, message: expect.any(String), details: expect.any(Array) });
    }
  });

  it("answers injection in activity identifiers with 400 or a FAILED activity, changing no object", async () => {
    const before = objects(await rowCounts(server.services.db));
    const target = generateP256KeyPair().publicKeyUncompressed;
    const requests = (id: string): Array<[string, string, unknown]> => [
      ["delete_wallets", "ACTIVITY_TYPE_DELETE_WALLETS", { walletIds: [id], deleteWithoutExport: true }],
      ["delete_users", "ACTIVITY_TYPE_DELETE_USERS", { userIds: [id] }],
      ["update_user_name", "ACTIVITY_TYPE_UPDATE_USER_NAME", { userId: id, userName: "renamed" }],
      ["export_wallet", "ACTIVITY_TYPE_EXPORT_WALLET", { walletId: id, targetPublicKey: target }],
      [
        "sign_raw_payload",
        "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
        { signWith: id, payload: "00", encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction: "HASH_FUNCTION_KECCAK256" },
      ],
      ["delete_policy", "ACTIVITY_TYPE_DELETE_POLICY", { policyId: id }],
      ["delete_api_keys", "ACTIVITY_TYPE_DELETE_API_KEYS", { userId: server.root.userId, apiKeyIds: [id] }],
      ["approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", { fingerprint: id }],
      ["delete_sub_organization", "ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION", { deleteWithoutExport: true }],
    ];
    for (const id of HOSTILE_IDS) {
      for (const [operation, type, parameters] of requests(id)) {
        const organizationId = operation === "delete_sub_organization" ? id : server.root.organizationId;
        const { status, json } = await send(`/public/v1/submit/${operation}`, activityBody(type, organizationId, parameters, timestamp()));
        const context = `${operation} with ${JSON.stringify(id).slice(0, 40)}: ${status} ${JSON.stringify(json).slice(0, 300)}`;
        expect(status, context).toBeLessThan(500);
        if (status === 200) expect((json.activity as { status: string }).status, context).toBe("ACTIVITY_STATUS_FAILED");
        else expect(json, context).toEqual({ code: expect.any(Number), message: expect.any(String), details: expect.any(Array) });
      }
    }
    expect(objects(await rowCounts(server.services.db))).toEqual(before);
    process.stdout.write(`[attacks] hostile identifiers sent to activities: ${HOSTILE_IDS.length * requests("").length}\n`);
  });

  it("stores SQL metacharacters in every string field as plain text and finds nothing by wildcard", async () => {
    const hostile = ["Robert'); DROP TABLE users;--", "%", "_", "\\", "' OR '1'='1", "$1", '"quoted"', "; SELECT pg_sleep(10); --"];
    for (const [i, text] of hostile.entries()) {
      const name = `${text} ${i}`;
      const user = await server.client().createUsers({
        users: [{ userName: name, userEmail: `x${i}@example.com`, userTags: [], apiKeys: [], authenticators: [], oauthProviders: [] }],
      });
      expect((await server.client().getUser({ userId: user.userIds[0]! })).user.userName).toBe(name);
      const tagged = await server.client().createUserTag({ userTagName: name, userIds: [user.userIds[0]!] });
      expect((await server.client().listUserTags({})).userTags.find((t) => t.tagId === tagged.userTagId)?.tagName).toBe(name);
      const wallet = await server.client().createWallet({ walletName: name, accounts: [ETHEREUM_ACCOUNT] });
      expect((await server.client().getWallet({ walletId: wallet.walletId })).wallet.walletName).toBe(name);
      const policy = await server
        .client()
        .createPolicy({ policyName: name, effect: "EFFECT_DENY", condition: `activity.type == 'NOTHING'`, notes: text });
      expect((await server.client().getPolicy({ policyId: policy.policyId })).policy).toMatchObject({ policyName: name, notes: text });
    }
    for (const filterType of ["NAME", "USERNAME", "EMAIL"]) {
      for (const filterValue of ["%", "_", "*", "' OR '1'='1"]) {
        expect((await server.client().getSubOrgIds({ filterType, filterValue })).organizationIds, `${filterType} ${filterValue}`).toEqual(
          [],
        );
      }
    }
    const tables = await server.services.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = current_schema() AND tablename IN ('users', 'wallets')",
    );
    expect(Number(tables[0]!.n)).toBe(2);
  });

  it("refuses a non-root user's escalation through update_root_quorum, a policy of its own, or keys for root (403), changing nothing", async () => {
    // A tag that exists (a tag that does not is a 400 at submission, before the decision).
    const { userTagId: admins } = await server.client().createUserTag({ userTagName: "admins", userIds: [] });
    const before = objects(await rowCounts(server.services.db));
    const attempts: Array<[string, string, unknown]> = [
      ["update_root_quorum", "ACTIVITY_TYPE_UPDATE_ROOT_QUORUM", { threshold: 1, userIds: [mallory.userId] }],
      [
        "create_policy",
        "ACTIVITY_TYPE_CREATE_POLICY_V3",
        {
          policyName: "mallory may",
          effect: "EFFECT_ALLOW",
          condition: "true",
          consensus: `approvers.any(user, user.id == '${mallory.userId}')`,
          notes: "",
        },
      ],
      [
        "create_policies",
        "ACTIVITY_TYPE_CREATE_POLICIES",
        { policies: [{ policyName: "mallory may too", effect: "EFFECT_ALLOW", condition: "true", consensus: "true", notes: "" }] },
      ],
      [
        "create_api_keys",
        "ACTIVITY_TYPE_CREATE_API_KEYS_V2",
        {
          userId: server.root.userId,
          apiKeys: [{ apiKeyName: "backdoor", publicKey: generateP256KeyPair().publicKey, curveType: "API_KEY_CURVE_P256" }],
        },
      ],
      ["update_user_name", "ACTIVITY_TYPE_UPDATE_USER_NAME", { userId: server.root.userId, userName: "pwned" }],
      // A valid list (input is checked before the decision: 0.0.0.0/0 would be a 400, see input validation).
      ["set_ip_allowlist", "ACTIVITY_TYPE_SET_IP_ALLOWLIST", { enabled: true, rules: [{ cidr: "203.0.113.0/24" }] }],
      ["set_organization_feature", "ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE", { name: "FEATURE_NAME_EMAIL_AUTH", value: "false" }],
      ["update_user", "ACTIVITY_TYPE_UPDATE_USER", { userId: mallory.userId, userTagIds: [admins] }],
    ];
    for (const [operation, type, parameters] of attempts) {
      const { status, json } = await send(
        `/public/v1/submit/${operation}`,
        activityBody(type, server.root.organizationId, parameters, timestamp()),
        mallory.key,
      );
      expect(status, `${operation}: ${JSON.stringify(json)}`).toBe(403);
      expect(json).toMatchObject({ code: 7, message: expect.stringContaining(mallory.userId) });
    }
    // The SDK sees the same refusal.
    const viaSdk = await refusal(
      server
        .client({ apiPublicKey: mallory.key.publicKey, apiPrivateKey: mallory.key.privateKey })
        .updateRootQuorum({ threshold: 1, userIds: [mallory.userId] }),
    );
    expect(viaSdk.code).toBe(7);
    expect((await server.client().getOrganizationConfigs({})).configs.quorum?.userIds).toEqual([server.root.userId]);
    expect(objects(await rowCounts(server.services.db))).toEqual(before);
  });
});

describe("forged X-Forwarded-For behind a trusted proxy", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { TRUST_PROXY: "127.0.0.1" } });
    await server.client().setIpAllowlist({ enabled: true, rules: [{ cidr: "203.0.113.0/24" }] });
  });
  afterAll(async () => server.close());

  it("believes only the address the trusted proxy appended, not one the client prepended", async () => {
    const before = await rowCounts(server.services.db);
    const key = { publicKey: server.root.apiPublicKey, privateKey: server.root.apiPrivateKey! };
    const body = activityBody("ACTIVITY_TYPE_CREATE_USER_TAG", server.root.organizationId, { userTagName: "from outside", userIds: [] });
    for (const forwarded of ["203.0.113.7, 198.51.100.9", "203.0.113.7,198.51.100.9", "198.51.100.9", "not-an-ip, 198.51.100.9"]) {
      const { status, json } = await post(`${server.url}/public/v1/submit/create_user_tag`, body, {
        "X-Stamp": p256Stamp(body, key.publicKey, key.privateKey),
        "X-Forwarded-For": forwarded,
      });
      expect(status, forwarded).toBe(403);
      expect(String(json.message), forwarded).toContain("198.51.100.9");
    }
    expect(await rowCounts(server.services.db)).toEqual(before);
    const allowed = await post(`${server.url}/public/v1/submit/create_user_tag`, body, {
      "X-Stamp": p256Stamp(body, key.publicKey, key.privateKey),
      "X-Forwarded-For": "198.51.100.9, 203.0.113.7",
    });
    expect(allowed.status).toBe(200);
  });
});
