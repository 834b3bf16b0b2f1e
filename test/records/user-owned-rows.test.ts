import { generateP256KeyPair } from "@turnkey/crypto";
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SoftwareAuthenticator } from "../helpers/software-authenticator.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const apiKey = (name: string, expirationSeconds?: string) => ({
  apiKeyName: name,
  publicKey: generateP256KeyPair().publicKey,
  curveType: "API_KEY_CURVE_P256" as const,
  ...(expirationSeconds ? { expirationSeconds } : {}),
});

/**
 * A user's record is read from the rows they own as kept on the user's row (migration 40, rewritten by triggers).
 * After each kind of change, every user's record (get_user, list_users, and what a vote records) must equal what the
 * per-kind queries answer, which read the owning tables themselves, and the tags must equal the assignments.
 */
describe("a user's record kept in step with the rows they own", () => {
  let server: TestServer;
  let clockAheadMs = 0;
  let alice: string;
  let bob: string;
  const authenticator = new SoftwareAuthenticator();

  beforeAll(async () => {
    server = await startTestServer({ clock: () => new Date(Date.now() + clockAheadMs) });
    authenticator.install();
    const { userTagId } = await server.client().createUserTag({ userTagName: "first", userIds: [] });
    const { userIds } = await server.client().createUsers({
      users: ["alice", "bob"].map((userName) => ({
        userName,
        apiKeys: [apiKey(`${userName} 1`), apiKey(`${userName} 2`)],
        authenticators: [],
        oauthProviders: [],
        userTags: [userTagId],
      })),
    });
    [alice, bob] = userIds as [string, string];
  });
  afterAll(async () => server.close());

  /** Every user's record as get_user and list_users show it, against the owning tables read apart. */
  async function expectRecordsMatchTables(): Promise<void> {
    const client = server.client();
    const { users } = await client.getUsers({});
    expect(users.length).toBeGreaterThanOrEqual(2);
    for (const listed of users) {
      const { userId } = listed;
      const { user } = await client.getUser({ userId });
      expect(listed).toEqual(user);
      expect(user.apiKeys).toEqual((await client.getApiKeys({ userId })).apiKeys);
      expect(user.authenticators).toEqual((await client.getAuthenticators({ userId })).authenticators);
      expect(user.oauthProviders).toEqual((await client.getOauthProviders({ userId })).oauthProviders);
      expect(user.mfaPolicies).toEqual((await client.getMfaPolicies({ userId })).mfaPolicies);
      const tags = await server.services.db.query<{ tag_id: string }>(
        `SELECT a.tag_id FROM user_tag_assignments a JOIN user_tags t ON t.id = a.tag_id WHERE a.user_id = $1
          ORDER BY t.created_at, t.id`,
        [userId],
      );
      expect(user.userTags).toEqual(tags.map((row) => row.tag_id));
    }
  }

  it("after users are created with keys and tags", async () => {
    expect((await server.client().getUser({ userId: alice })).user.apiKeys.map((key) => key.apiKeyName)).toEqual(["alice 1", "alice 2"]);
    await expectRecordsMatchTables();
  });

  it("after API keys are added and deleted, and once one has expired", async () => {
    const { apiKeyIds } = await server.client().createApiKeys({ userId: alice, apiKeys: [apiKey("alice 3"), apiKey("short", "60")] });
    await expectRecordsMatchTables();
    clockAheadMs = 61_000;
    const { user } = await server.client().getUser({ userId: alice });
    expect(user.apiKeys.map((key) => key.apiKeyName)).toEqual(["alice 1", "alice 2", "alice 3"]);
    await expectRecordsMatchTables();
    clockAheadMs = 0;
    await server.client().deleteApiKeys({ userId: alice, apiKeyIds: [apiKeyIds[0]!] });
    expect((await server.client().getUser({ userId: alice })).user.apiKeys.map((key) => key.apiKeyName)).toEqual([
      "alice 1",
      "alice 2",
      "short",
    ]);
    await expectRecordsMatchTables();
  });

  it("after passkeys and OAuth providers are added and deleted", async () => {
    const challenge = randomBytes(32).toString("base64url");
    const { authenticatorIds } = await server.client().createAuthenticators({
      userId: bob,
      authenticators: [{ authenticatorName: "laptop", challenge, attestation: authenticator.attest(challenge) }],
    });
    const { providerIds } = await server.client().createOauthProviders({
      userId: bob,
      oauthProviders: [{ providerName: "idp", oidcClaims: { iss: "https://issuer.example", sub: "bob", aud: "client" } }],
    });
    const { user } = await server.client().getUser({ userId: bob });
    expect(user.authenticators.map((a) => a.authenticatorName)).toEqual(["laptop"]);
    expect(user.oauthProviders.map((p) => p.subject)).toEqual(["bob"]);
    await expectRecordsMatchTables();
    await server.client().deleteAuthenticators({ userId: bob, authenticatorIds });
    await server.client().deleteOauthProviders({ userId: bob, providerIds });
    await expectRecordsMatchTables();
  });

  it("after MFA policies are added, reordered and deleted", async () => {
    const policy = (order: number, mfaPolicyName: string) => ({
      userId: alice,
      mfaPolicyName,
      condition: "activity.action == 'SIGN'",
      requiredAuthenticationMethods: [{ any: [{ type: "AUTHENTICATION_TYPE_PASSKEY" as const }] }],
      order,
    });
    const first = await server.client().createMfaPolicy(policy(2, "later"));
    const second = await server.client().createMfaPolicy(policy(1, "sooner"));
    await expectRecordsMatchTables();
    await server.client().updateMfaPolicy({ userId: alice, mfaPolicyId: first.mfaPolicyId, order: 0, mfaPolicyName: "now first" });
    expect((await server.client().getUser({ userId: alice })).user.mfaPolicies.map((p) => p.mfaPolicyName)).toEqual([
      "now first",
      "sooner",
    ]);
    await expectRecordsMatchTables();
    await server.client().deleteMfaPolicy({ userId: alice, mfaPolicyId: second.mfaPolicyId });
    await expectRecordsMatchTables();
  });

  it("after tags gain and lose users and are deleted", async () => {
    const { userTagId } = await server.client().createUserTag({ userTagName: "second", userIds: [bob] });
    await expectRecordsMatchTables();
    await server.client().updateUserTag({ userTagId, addUserIds: [alice], removeUserIds: [bob] });
    await expectRecordsMatchTables();
    await server.client().deleteUserTags({ userTagIds: [userTagId] });
    await expectRecordsMatchTables();
  });

  it("records the voter as get_user shows them at the vote", async () => {
    await server.client().createApiKeys({ userId: server.root.userId, apiKeys: [apiKey("root's second")] });
    const { user } = await server.client().getUser({ userId: server.root.userId });
    const { activity } = await server.client().createUserTag({ userTagName: "voted", userIds: [] });
    expect(activity.votes[0]!.user).toEqual(user);
  });

  // Two transactions add to one user's rows at once: the second's rewrite waits for the first to commit, and must
  // then read what the first added (here an MFA policy, which the user's submissions are held to), not drop it.
  it.skipIf(!process.env.DATABASE_URL)("when two transactions change one user's rows at once (PostgreSQL)", async () => {
    const { db } = server.services;
    const now = new Date();
    const organizationId = server.root.organizationId;
    let second: Promise<unknown> | undefined;
    await db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO mfa_policies (id, organization_id, user_id, name, condition, required_methods, position, notes, created_at, updated_at)
         VALUES ($1, $2, $3, 'concurrent policy', $4, $5::jsonb, 9, '', $6, $6)`,
        [
          randomUUID(),
          organizationId,
          alice,
          "activity.action == 'SIGN'",
          JSON.stringify([{ any: [{ type: "AUTHENTICATION_TYPE_PASSKEY" }] }]),
          now,
        ],
      );
      second = db.transaction((other) =>
        other.query(
          `INSERT INTO api_keys (id, organization_id, user_id, name, public_key, curve, credential_type, created_at, updated_at)
           VALUES ($1, $2, $3, 'concurrent key', $4, 'API_KEY_CURVE_P256', 'CREDENTIAL_TYPE_API_KEY_P256', $5, $5)`,
          [randomUUID(), organizationId, alice, generateP256KeyPair().publicKey, now],
        ),
      );
      await vi.waitFor(
        async () => {
          const [{ n }] = (await db.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
          )) as [{ n: number }];
          expect(n, "the second transaction waits for the first's lock on the user").toBeGreaterThan(0);
        },
        { timeout: 10_000, interval: 5 },
      );
    });
    await second;
    const { user } = await server.client().getUser({ userId: alice });
    expect(user.mfaPolicies.map((policy) => policy.mfaPolicyName)).toContain("concurrent policy");
    expect(user.apiKeys.map((key) => key.apiKeyName)).toContain("concurrent key");
    await expectRecordsMatchTables();
  });

  it("after a user is deleted with everything they own", async () => {
    await server.client().deleteUsers({ userIds: [bob] });
    expect((await server.client().getUsers({})).users.map((user) => user.userId)).not.toContain(bob);
    await expectRecordsMatchTables();
  });
});
