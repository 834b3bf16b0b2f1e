import { generateP256KeyPair } from "@turnkey/crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initRoot, sdkClient, sharedPostgres, type RootCredentials } from "../helpers/cluster.js";
import { startServerProcess, type ServerProcess } from "../helpers/processes.js";
import { activityBody, p256Stamp, post } from "../helpers/requests.js";
import { createUserWithApiKey } from "../helpers/users.js";

/**
 * Three `strongroom serve` processes on one PostgreSQL, driven at once through the official SDK with
 * conflicting work. Nothing that must be consistent may live in one process's memory: whatever one
 * process changes, the others see on their very next request.
 */
describe.skipIf(!process.env.DATABASE_URL)("three processes on one PostgreSQL (needs DATABASE_URL)", () => {
  let database: Awaited<ReturnType<typeof sharedPostgres>>;
  let processes: ServerProcess[] = [];
  let root: RootCredentials;
  let sql: pg.Client;
  const clients = (credentials: { apiPublicKey: string; apiPrivateKey: string } = root) =>
    processes.map((p) => sdkClient(p.url, credentials, root.organizationId));
  const count = async (query: string, params: unknown[] = []) => Number((await sql.query<{ n: number }>(query, params)).rows[0]!.n);

  /** A user of the root organization with one API key (created through process 0). */
  async function addUser(name: string) {
    const { userId, credentials } = await createUserWithApiKey(clients()[0]!, name);
    return { userId, credentials };
  }

  beforeAll(async () => {
    database = await sharedPostgres();
    root = initRoot(database.env);
    const started = await Promise.allSettled([0, 1, 2].map(() => startServerProcess(database.env)));
    processes = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
    const failed = started.find((s) => s.status === "rejected");
    if (failed) throw failed.reason;
    sql = new pg.Client({ connectionString: database.sqlUrl });
    await sql.connect();
  }, 300_000);
  afterAll(async () => {
    for (const p of processes) await p.kill();
    await sql?.end();
    await database?.drop();
  });

  it("creates a user name asked for by every process at once exactly once; the others fail with ALREADY_EXISTS", async () => {
    const outcomes = await Promise.allSettled(
      // Distinct emails keep the bodies distinct (identical bodies would be one activity by fingerprint).
      clients().flatMap((client, p) =>
        [0, 1].map((i) =>
          client.createUsers({
            users: [
              {
                userName: "contested",
                userEmail: `c${p}${i}@example.com`,
                userTags: [],
                apiKeys: [],
                authenticators: [],
                oauthProviders: [],
              },
            ],
          }),
        ),
      ),
    );
    // The SDK hands back a FAILED activity (HTTP 200) rather than throwing; either way only one may complete.
    const statuses = outcomes.map((o) => (o.status === "fulfilled" ? o.value.activity.status : `refused: ${String(o.reason)}`));
    expect(statuses.filter((s) => s === "ACTIVITY_STATUS_COMPLETED")).toHaveLength(1);
    expect(statuses.filter((s) => s === "ACTIVITY_STATUS_FAILED")).toHaveLength(5);
    const failures = await sql.query<{ failure: { message: string } }>(
      "SELECT failure FROM activities WHERE type LIKE 'ACTIVITY_TYPE_CREATE_USERS%' AND status = 'ACTIVITY_STATUS_FAILED' AND intent::text LIKE '%contested%'",
    );
    expect(failures.rows.map((r) => r.failure.message)).toEqual(Array(5).fill(expect.stringMatching(/already exists/)));
    expect(await count("SELECT count(*)::int AS n FROM users WHERE name = 'contested'")).toBe(1);
  });

  it("holds the documented limits when every process asks for the last free place at once", async () => {
    const owner = generateP256KeyPair();
    const credentials = { apiPublicKey: owner.publicKey, apiPrivateKey: owner.privateKey };
    const { subOrganizationId } = await clients()[0]!.createSubOrganization({
      subOrganizationName: "at the limit",
      rootQuorumThreshold: 1,
      rootUsers: [
        {
          userName: "owner",
          apiKeys: [{ apiKeyName: "owner", publicKey: owner.publicKey, curveType: "API_KEY_CURVE_P256" }],
          authenticators: [],
          oauthProviders: [],
        },
      ],
    });
    const inSub = processes.map((p) => sdkClient(p.url, credentials, subOrganizationId));
    const newUser = (name: string) => ({ userName: name, userTags: [], apiKeys: [], authenticators: [], oauthProviders: [] });
    // 100 users per organization: the owner and 98 more leave one place.
    await inSub[0]!.createUsers({ users: Array.from({ length: 98 }, (_, i) => newUser(`filler ${i}`)) });
    // 10 tags in a sub-organization: 9 leave one place.
    for (let i = 0; i < 9; i++) await inSub[i % 3]!.createUserTag({ userTagName: `filler ${i}`, userIds: [] });

    const users = await Promise.allSettled(
      inSub.flatMap((client, p) => [0, 1].map((i) => client.createUsers({ users: [newUser(`last ${p}.${i}`)] }))),
    );
    const tags = await Promise.allSettled(
      inSub.flatMap((client, p) => [0, 1].map((i) => client.createUserTag({ userTagName: `last ${p}.${i}`, userIds: [] }))),
    );
    for (const [what, outcomes] of [
      ["users", users],
      ["tags", tags],
    ] as const) {
      const statuses = outcomes.map((o) => (o.status === "fulfilled" ? o.value.activity.status : `refused: ${String(o.reason)}`));
      expect(
        statuses.filter((s) => s === "ACTIVITY_STATUS_COMPLETED"),
        `${what}: ${statuses.join(", ")}`,
      ).toHaveLength(1);
    }
    expect(await count("SELECT count(*)::int AS n FROM users WHERE organization_id = $1", [subOrganizationId])).toBe(100);
    expect(await count("SELECT count(*)::int AS n FROM user_tags WHERE organization_id = $1", [subOrganizationId])).toBe(10);
  });

  it("treats one body sent to every process at once as one activity", async () => {
    const body = activityBody("ACTIVITY_TYPE_CREATE_USER_TAG", root.organizationId, { userTagName: "sent thrice", userIds: [] });
    const stamp = { "X-Stamp": p256Stamp(body, root.apiPublicKey, root.apiPrivateKey) };
    const answers = await Promise.all(
      processes.flatMap((p) => [0, 1].map(() => post(`${p.url}/public/v1/submit/create_user_tag`, body, stamp))),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const ids = new Set(answers.map((a) => (a.json.activity as { id: string }).id));
    expect(ids.size).toBe(1);
    expect(await count("SELECT count(*)::int AS n FROM user_tags WHERE name = 'sent thrice'")).toBe(1);
    expect(await count("SELECT count(*)::int AS n FROM activities WHERE intent::text LIKE '%sent thrice%'")).toBe(1);
  });

  it("deletes a wallet while it is exported elsewhere: either order, nothing half-done", async () => {
    const orders = { exportFirst: 0, deleteFirst: 0 };
    for (let round = 0; round < 6; round++) {
      const [a, b] = round % 2 ? [clients()[1]!, clients()[2]!] : [clients()[2]!, clients()[0]!];
      const { walletId } = await a.createWallet({
        walletName: `contested ${round}`,
        accounts: [
          { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" },
        ],
      });
      const target = generateP256KeyPair();
      const [exported, deleted] = await Promise.allSettled([
        a.exportWallet({ walletId, targetPublicKey: target.publicKeyUncompressed }),
        b.deleteWallets({ walletIds: [walletId], deleteWithoutExport: true }),
      ]);
      // The delete always goes through (it needs no export first); the export either came first, with a bundle, or found no wallet.
      expect(deleted.status, String((deleted as PromiseRejectedResult).reason)).toBe("fulfilled");
      // The SDK hands back a FAILED activity rather than throwing.
      const exportedActivity = exported.status === "fulfilled" ? exported.value.activity : undefined;
      if (exportedActivity?.status === "ACTIVITY_STATUS_COMPLETED")
        expect(exported.status === "fulfilled" && exported.value.exportBundle).toBeTruthy();
      else
        expect(exportedActivity?.failure?.message ?? String((exported as PromiseRejectedResult).reason)).toMatch(
          /not found|no wallet|could not find/i,
        );
      orders[exportedActivity?.status === "ACTIVITY_STATUS_COMPLETED" ? "exportFirst" : "deleteFirst"]++;
      expect(await count("SELECT count(*)::int AS n FROM wallets WHERE id = $1", [walletId])).toBe(0);
      expect(await count("SELECT count(*)::int AS n FROM wallet_accounts WHERE wallet_id = $1", [walletId])).toBe(0);
    }
    process.stdout.write(`[cluster] delete while exporting: ${JSON.stringify(orders)}\n`);
  });

  it("executes an activity once when two processes cast the deciding vote at the same moment", async () => {
    const bob = await addUser("bob");
    const carol = await addUser("carol");
    await clients()[0]!.updateRootQuorum({ threshold: 2, userIds: [root.userId, bob.userId, carol.userId] });
    try {
      for (let round = 0; round < 4; round++) {
        const submitted = await clients()[round % 3]!.createUserTag({ userTagName: `voted ${round}`, userIds: [] });
        expect(submitted.activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
        const votes = await Promise.allSettled([
          clients(bob.credentials)[1]!.approveActivity({ fingerprint: submitted.activity.fingerprint }),
          clients(carol.credentials)[2]!.approveActivity({ fingerprint: submitted.activity.fingerprint }),
        ]);
        const accepted = votes.filter((v) => v.status === "fulfilled");
        expect(accepted).toHaveLength(1);
        expect((accepted[0] as PromiseFulfilledResult<{ activity: { status: string } }>).value.activity.status).toBe(
          "ACTIVITY_STATUS_COMPLETED",
        );
        expect(String((votes.find((v) => v.status === "rejected") as PromiseRejectedResult).reason)).toMatch(/ACTIVITY_STATUS_COMPLETED/);
        expect(await count("SELECT count(*)::int AS n FROM user_tags WHERE name = $1", [`voted ${round}`])).toBe(1);
        expect(await count("SELECT count(*)::int AS n FROM votes WHERE activity_id = $1", [submitted.activity.id])).toBe(2);
      }
    } finally {
      // Back to a quorum of one, approved by bob.
      const lowered = await clients()[0]!.updateRootQuorum({ threshold: 1, userIds: [root.userId] });
      if (lowered.activity.status !== "ACTIVITY_STATUS_COMPLETED")
        await clients(bob.credentials)[1]!.approveActivity({ fingerprint: lowered.activity.fingerprint });
    }
  });

  it("refuses an API key deleted through one process on the very next request to every other", async () => {
    const dave = await addUser("dave");
    const [, p1, p2] = clients(dave.credentials);
    expect((await p1!.getWhoami({})).userId).toBe(dave.userId);
    expect((await p2!.getWhoami({})).userId).toBe(dave.userId);
    const { apiKeys } = await clients()[0]!.getApiKeys({ userId: dave.userId });
    await clients()[0]!.deleteApiKeys({ userId: dave.userId, apiKeyIds: apiKeys.map((k) => k.apiKeyId) });
    for (const client of [p1!, p2!]) {
      await expect(client.getWhoami({})).rejects.toThrow(/could not find public key/);
      await expect(client.createUserTag({ userTagName: "by a deleted key", userIds: [] })).rejects.toThrow(/could not find public key/);
    }
    expect(await count("SELECT count(*)::int AS n FROM user_tags WHERE name = 'by a deleted key'")).toBe(0);
  });

  it("applies a deny policy created through one process on the very next request to the others, and its removal too", async () => {
    const erin = await addUser("erin");
    const [, p1, p2] = clients(erin.credentials);
    await p1!.createUserTag({ userTagName: "erin allowed", userIds: [] }).catch(() => undefined);
    const { policyId } = await clients()[0]!.createPolicy({
      policyName: "no tags for erin",
      effect: "EFFECT_DENY",
      condition: "activity.resource == 'USER' && activity.action == 'CREATE'",
      consensus: `approvers.any(user, user.id == '${erin.userId}')`,
      notes: "",
    });
    for (const [i, client] of [p1!, p2!].entries()) {
      await expect(client.createUserTag({ userTagName: `erin denied ${i}`, userIds: [] })).rejects.toThrow(/denied|not authorized|deny/i);
    }
    expect(await count("SELECT count(*)::int AS n FROM user_tags WHERE name LIKE 'erin denied%'")).toBe(0);
    await clients()[1]!.deletePolicy({ policyId });
    // Without the deny and with no allow, a non-root user is still refused by implicit deny; with an allow, both processes agree at once.
    const allow = await clients()[2]!.createPolicy({
      policyName: "erin may tag",
      effect: "EFFECT_ALLOW",
      condition: "activity.resource == 'USER' && activity.action == 'CREATE'",
      consensus: `approvers.any(user, user.id == '${erin.userId}')`,
      notes: "",
    });
    expect((await p1!.createUserTag({ userTagName: "erin allowed 1", userIds: [] })).activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect((await p2!.createUserTag({ userTagName: "erin allowed 2", userIds: [] })).activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    await clients()[0]!.deletePolicy({ policyId: allow.policyId });
    await expect(p2!.createUserTag({ userTagName: "erin after allow removed", userIds: [] })).rejects.toThrow(
      /denied|not authorized|deny/i,
    );
  });

  it("stops honouring an expiring API key on every process once it has expired", async () => {
    const key = generateP256KeyPair();
    await clients()[0]!.createApiKeys({
      userId: root.userId,
      apiKeys: [{ apiKeyName: "short-lived", publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256", expirationSeconds: "3" }],
    });
    const short = clients({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey });
    for (const client of short) expect((await client.getWhoami({})).userId).toBe(root.userId);
    const [{ expires_at: expiresAt }] = (
      await sql.query<{ expires_at: Date }>("SELECT expires_at FROM api_keys WHERE public_key = $1", [key.publicKey])
    ).rows as [{ expires_at: Date }];
    // The processes' clocks cannot be moved from here: time passing, until the key's recorded expiry, is the subject.
    await new Promise((r) => setTimeout(r, Math.max(0, expiresAt.getTime() + 1 - Date.now())));
    for (const client of short) await expect(client.getWhoami({})).rejects.toThrow(/expired/);
  });
});
