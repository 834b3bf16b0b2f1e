import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { generateP256KeyPair } from "@turnkey/crypto";
import { TurnkeyClient } from "@turnkey/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DryRunAnswer } from "../../src/pipeline/dry-run/answer.js";
import type { Queryable } from "../../src/store/database.js";
import { p256Stamp, post } from "../helpers/requests.js";
import { resultViolations } from "../helpers/result-schemas.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { userWithApiKey } from "../helpers/users.js";

type KeyPair = ReturnType<typeof generateP256KeyPair>;
type Answer = {
  outcome: string;
  reason: string;
  byRootQuorum?: boolean;
  activityType: string;
  policyEvaluations: { policyId: string; draftIndex?: number; policyName: string; outcome: string }[];
};

const DRY_RUN = "/strongroom/v1/query/dry_run_activity";

/** Every row of every table, hashed per table: a dry run must leave all of it as it was. */
async function snapshot(db: Queryable): Promise<Record<string, string>> {
  // The audit log's integrator gives the events of activities committed just before their entries on its own time:
  // the snapshot is taken once it has (a dry run records nothing, so the log then stays as it is).
  for (let waited = 0; (await db.query("SELECT 1 FROM audit_pending LIMIT 1")).length > 0; waited += 20) {
    if (waited > 20_000) throw new Error("the audit log's integrator left events pending for 20 s");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const tables = await db.query<{ tablename: string }>(
    "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename",
  );
  // The audit log's state row holds its integrator's lease, renewed by every pass (a poll with nothing recorded
  // too): of that row, the log's size is what a write would change.
  const union = tables
    .map(({ tablename }) =>
      tablename === "audit_log_state"
        ? `SELECT 'audit_log_state' AS t, string_agg(size::text, '|') AS h FROM audit_log_state`
        : `SELECT '${tablename}' AS t, count(*)::int || ':' || md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) AS h FROM "${tablename}" x`,
    )
    .join(" UNION ALL ");
  const rows = await db.query<{ t: string; h: string }>(union);
  return Object.fromEntries(rows.map((r) => [r.t, r.h]));
}

const withEmail = (name: string, publicKey: string) => userWithApiKey(name, publicKey, { userEmail: `${name}@example.com` });

describe("POST /strongroom/v1/query/dry_run_activity", () => {
  let server: TestServer;
  const users: Record<"alice" | "bob" | "carol", { userId: string; key: KeyPair }> = {} as never;
  let ops: string;
  let subA: { id: string; key: KeyPair };
  let subB: { id: string; key: KeyPair };
  /** alice's create_private_key_tag, waiting for alice, bob and carol; bob has approved. */
  let waiting: { id: string; fingerprint: string };

  /** A dry run stamped with `key` (the root user's by default), as the project's tests stamp every request. */
  async function dryRun(body: Record<string, unknown>, key?: KeyPair): Promise<{ status: number; json: Record<string, unknown> }> {
    const text = JSON.stringify({ organizationId: server.root.organizationId, ...body });
    const publicKey = key?.publicKey ?? server.root.apiPublicKey;
    const privateKey = key?.privateKey ?? server.root.apiPrivateKey!;
    return post(`${server.url}${DRY_RUN}`, text, { "X-Stamp": p256Stamp(text, publicKey, privateKey) });
  }
  async function answer(body: Record<string, unknown>, key?: KeyPair): Promise<Answer> {
    const { status, json } = await dryRun(body, key);
    expect(status, JSON.stringify(json)).toBe(200);
    expect(resultViolations(DryRunAnswer, json)).toEqual([]);
    return json as unknown as Answer;
  }
  const as = (name: keyof typeof users) =>
    server.client({ apiPublicKey: users[name].key.publicKey, apiPrivateKey: users[name].key.privateKey });
  const userTag = (name: string) => ({ type: "ACTIVITY_TYPE_CREATE_USER_TAG", parameters: { userTagName: name, userIds: [] } });
  const initOtp = {
    type: "ACTIVITY_TYPE_INIT_OTP_V3",
    parameters: { otpType: "OTP_TYPE_EMAIL", contact: "someone@example.com", appName: "x" },
  };
  const keyTag = (name: string) => ({
    type: "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG",
    parameters: { privateKeyTagName: name, privateKeyIds: [] },
  });

  beforeAll(async () => {
    server = await startTestServer();
    const client = server.client();
    ops = (await client.createUserTag({ userTagName: "ops", userIds: [] })).userTagId;
    for (const name of ["alice", "bob", "carol"] as const) {
      const key = generateP256KeyPair();
      const { userIds } = await client.createUsers({
        users: [
          {
            userName: name,
            apiKeys: [{ apiKeyName: name, publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }],
            authenticators: [],
            oauthProviders: [],
            userTags: [ops],
          },
        ],
      });
      users[name] = { userId: userIds[0]!, key };
    }
    const one = (name: keyof typeof users) => `approvers.any(user, user.id == '${users[name].userId}')`;
    await client.createPolicies({
      policies: [
        {
          policyName: "ops may tag users",
          effect: "EFFECT_ALLOW",
          condition: "activity.type == 'ACTIVITY_TYPE_CREATE_USER_TAG'",
          notes: "",
        },
        {
          policyName: "nobody deletes user tags",
          effect: "EFFECT_DENY",
          condition: "activity.type == 'ACTIVITY_TYPE_DELETE_USER_TAGS'",
          notes: "",
        },
        {
          policyName: "key tags need alice, bob and carol",
          effect: "EFFECT_ALLOW",
          condition: "activity.type == 'ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG'",
          consensus: `${one("alice")} && ${one("bob")} && ${one("carol")}`,
          notes: "",
        },
      ],
    });
    const submitted = await as("alice").createPrivateKeyTag({ privateKeyTagName: "waiting", privateKeyIds: [] });
    expect(submitted.activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    const approved = await as("bob").approveActivity({ fingerprint: submitted.activity.fingerprint });
    expect(approved.activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    waiting = { id: submitted.activity.id, fingerprint: submitted.activity.fingerprint };
    await as("carol").getWhoami({ organizationId: server.root.organizationId }); // every key has stamped once (authentication marks it proven)

    for (const name of ["A", "B"]) {
      const key = generateP256KeyPair();
      const created = await client.createSubOrganization({
        subOrganizationName: `sub ${name}`,
        rootQuorumThreshold: 1,
        rootUsers: [withEmail(`root-${name}`, key.publicKey)],
      });
      const sub = { id: created.subOrganizationId, key };
      await server
        .client({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }, sub.id)
        .createUserTag({ userTagName: "t", userIds: [] });
      if (name === "A") subA = sub;
      else subB = sub;
    }
  });
  afterAll(async () => server.close());

  it("answers as any member (asUserId): the root user asks what alice's request would meet, and bad members are refused", async () => {
    // As the root user itself, the root quorum decides and no policy is consulted.
    const asRoot = await answer({ activity: userTag("as root") });
    expect(asRoot).toMatchObject({ outcome: "ALLOW", byRootQuorum: true });
    // As alice, asked by the root user: what alice's own request meets.
    const asAlice = await answer({ activity: keyTag("as alice"), asUserId: users.alice.userId });
    const byAlice = await answer({ activity: keyTag("as alice") }, users.alice.key);
    expect(asAlice).toEqual(byAlice);
    expect(asAlice.outcome).toBe("CONSENSUS_NEEDED");
    expect((await answer({ activity: userTag("as alice"), asUserId: users.alice.userId })).reason).toContain("ops may tag users");

    const keyless = (
      await server
        .client()
        .createUsers({ users: [{ userName: "keyless", apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }] })
    ).userIds[0]!;
    const before = await snapshot(server.services.db);
    const stranger = await dryRun({ activity: userTag("x"), asUserId: "00000000-0000-4000-8000-000000000000" });
    expect(stranger.status).toBe(404);
    expect(String(stranger.json.message)).toContain("00000000-0000-4000-8000-000000000000");
    const withPast = await dryRun({ activityId: waiting.id, asUserId: users.alice.userId });
    expect(withPast.status).toBe(400);
    expect(withPast.json.message).toMatch(/^asUserId: only with a drafted activity/);
    const noCredential = await dryRun({ activity: userTag("x"), asUserId: keyless });
    expect(noCredential.status).toBe(400);
    expect(noCredential.json.message).toMatch(/asUserId: .*has no API key or passkey/);
    expect(await snapshot(server.services.db)).toEqual(before);
    await server.client().deleteUsers({ userIds: [keyless] });
  });

  it("answers a drafted activity against the current policies: allow, deny, consensus needed, implicit deny", async () => {
    const allowed = await answer({ activity: userTag("drafted") }, users.alice.key);
    expect(allowed).toMatchObject({ outcome: "ALLOW", byRootQuorum: false, activityType: "ACTIVITY_TYPE_CREATE_USER_TAG" });
    expect(allowed.reason).toContain('allowed by policy "ops may tag users"');
    expect(allowed.policyEvaluations.map((e) => [e.policyName, e.outcome])).toEqual([
      ["ops may tag users", "OUTCOME_ALLOW"],
      ["nobody deletes user tags", "OUTCOME_DENY_IMPLICIT"],
      ["key tags need alice, bob and carol", "OUTCOME_DENY_IMPLICIT"],
    ]);
    expect(allowed.policyEvaluations[0]!.policyId).toMatch(/^[0-9a-f-]{36}$/);

    const denied = await answer(
      { activity: { type: "ACTIVITY_TYPE_DELETE_USER_TAGS", parameters: { userTagIds: [ops] } } },
      users.alice.key,
    );
    expect(denied.outcome).toBe("DENY");
    expect(denied.reason).toContain('denied by policy "nobody deletes user tags"');
    expect(denied.reason).toContain("explicit deny");

    const consensus = await answer({ activity: keyTag("drafted") }, users.alice.key);
    expect(consensus.outcome).toBe("CONSENSUS_NEEDED");
    expect(consensus.reason).toContain('policy "key tags need alice, bob and carol"');
    expect(consensus.policyEvaluations[2]!.outcome).toBe("OUTCOME_REQUIRES_CONSENSUS");

    const unmatched = await answer(
      {
        activity: {
          type: "ACTIVITY_TYPE_UPDATE_USER_TAG",
          parameters: { userTagId: ops, newUserTagName: "x", addUserIds: [], removeUserIds: [] },
        },
      },
      users.alice.key,
    );
    expect(unmatched.outcome).toBe("DENY");
    expect(unmatched.reason).toContain("no policy allows it");

    // The root user alone is the root quorum here: no policy is consulted.
    const byRoot = await answer({ activity: { type: "ACTIVITY_TYPE_DELETE_USER_TAGS", parameters: { userTagIds: [ops] } } });
    expect(byRoot).toMatchObject({ outcome: "ALLOW", byRootQuorum: true, policyEvaluations: [] });
  });

  it("answers the same activity differently against a drafted policy set, which replaces the current one", async () => {
    const drafted = await answer(
      {
        activity: userTag("drafted"),
        policies: [
          { policyName: "draft: no user tags", effect: "EFFECT_DENY", condition: "activity.type == 'ACTIVITY_TYPE_CREATE_USER_TAG'" },
          {
            policyName: "draft: key tags by alice",
            effect: "EFFECT_ALLOW",
            consensus: `approvers.any(user, user.id == '${users.alice.userId}')`,
          },
        ],
      },
      users.alice.key,
    );
    expect(drafted.outcome).toBe("DENY");
    expect(drafted.reason).toContain('denied by policy "draft: no user tags" (draft:0)');
    expect(drafted.policyEvaluations).toEqual([
      { policyId: "draft:0", draftIndex: 0, policyName: "draft: no user tags", outcome: "OUTCOME_DENY_EXPLICIT" },
      { policyId: "draft:1", draftIndex: 1, policyName: "draft: key tags by alice", outcome: "OUTCOME_ALLOW" },
    ]);
    const none = await answer({ activity: userTag("drafted"), policies: [] }, users.alice.key);
    expect(none).toMatchObject({ outcome: "DENY", policyEvaluations: [] });
    expect(none.reason).toContain("no policy allows it");
    // The stored policies are untouched: the same request without a draft is still allowed.
    expect((await answer({ activity: userTag("drafted") }, users.alice.key)).outcome).toBe("ALLOW");
  });

  it("decides a past activity again with its requester and the votes it has", async () => {
    const current = await answer({ activityId: waiting.id });
    expect(current.outcome).toBe("CONSENSUS_NEEDED");
    expect(current.activityType).toBe("ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG");

    const approvedBy = (a: keyof typeof users, b: keyof typeof users) =>
      `approvers.any(user, user.id == '${users[a].userId}') && approvers.any(user, user.id == '${users[b].userId}')`;
    const draft = (consensus: string) => [{ policyName: "draft", effect: "EFFECT_ALLOW", consensus }];
    // alice requested it and bob approved: a set asking for those two allows it, one asking for carol still waits.
    const aliceAndBob = await answer({ activityId: waiting.id, policies: draft(approvedBy("alice", "bob")) });
    expect(aliceAndBob).toMatchObject({ outcome: "ALLOW", byRootQuorum: false });
    expect(aliceAndBob.reason).toContain('allowed by policy "draft" (draft:0)');
    expect((await answer({ activityId: waiting.id, policies: draft(approvedBy("alice", "carol")) })).outcome).toBe("CONSENSUS_NEEDED");
    // Asked by carol: the requester is still the activity's (alice), whoever asks.
    expect((await answer({ activityId: waiting.id, policies: draft(approvedBy("alice", "bob")) }, users.carol.key)).outcome).toBe("ALLOW");

    const activity = await server.client().getActivity({ activityId: waiting.id });
    expect(activity.activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    expect(activity.activity.votes).toHaveLength(2);

    const unknown = await dryRun({ activityId: "01890000-0000-7000-8000-000000000000" });
    expect(unknown.status).toBe(404);
  });

  it("refuses a drafted set that does not compile with 400 naming the policy's index, field and position", async () => {
    const { status, json } = await dryRun({
      activity: userTag("x"),
      policies: [
        { policyName: "fine", effect: "EFFECT_ALLOW", condition: "true" },
        { policyName: "broken", effect: "EFFECT_ALLOW", condition: "activity.type == " },
      ],
    });
    expect(status).toBe(400);
    expect(json.message).toContain("policies[1].condition: invalid policy condition: at position 17: expected a value");
    expect(json.details).toContainEqual(
      expect.objectContaining({ fieldViolations: [expect.objectContaining({ field: "policies[1].condition" })] }),
    );

    const typeError = await dryRun({
      activity: userTag("x"),
      policies: [{ policyName: "t", effect: "EFFECT_ALLOW", condition: "approvers.count() > 1" }],
    });
    expect(typeError.status).toBe(400);
    expect(typeError.json.message).toContain("policies[0].condition");
    expect(typeError.json.message).toContain("unknown name 'approvers'");

    const tooMany = Array.from({ length: 101 }, (_, i) => ({ policyName: `p${i}`, effect: "EFFECT_ALLOW" }));
    expect((await dryRun({ activity: userTag("x"), policies: tooMany })).status).toBe(400);
    const badEffect = await dryRun({ activity: userTag("x"), policies: [{ policyName: "e", effect: "EFFECT_MAYBE" }] });
    expect(badEffect.status).toBe(400);
    expect(badEffect.json.message).toContain("policies[0].effect");
  });

  it("refuses bad requests with field-level 400s: unknown type, invalid parameters, not exactly one subject", async () => {
    const unknownType = await dryRun({ activity: { type: "ACTIVITY_TYPE_APPROVE_ACTIVITY", parameters: {} } });
    expect(unknownType.status).toBe(400);
    expect(unknownType.json.message).toContain("activity.type: unknown activity type");

    const badParams = await dryRun({ activity: { type: "ACTIVITY_TYPE_CREATE_USER_TAG", parameters: { userIds: [] } } });
    expect(badParams.status).toBe(400);
    expect(badParams.json.message).toContain("activity.parameters.userTagName");

    // The definition's own `validate`, as at submission: a policy with a bad expression is refused before any decision.
    const badPolicy = await dryRun({
      activity: {
        type: "ACTIVITY_TYPE_CREATE_POLICY_V3",
        parameters: { policyName: "p", effect: "EFFECT_ALLOW", condition: "1 +", notes: "" },
      },
    });
    expect(badPolicy.status).toBe(400);
    expect(badPolicy.json.message).toContain("invalid policy condition");

    for (const body of [{}, { activity: userTag("x"), activityId: waiting.id }]) {
      const neither = await dryRun(body);
      expect(neither.status).toBe(400);
      expect(neither.json.message).toContain("exactly one of activity");
    }
    expect((await dryRun({ activity: { type: "ACTIVITY_TYPE_CREATE_USER_TAG", parameters: [] } })).status).toBe(400);
  });

  it("is refused to a caller from another organization, exactly as a query is", async () => {
    const text = JSON.stringify({ organizationId: subB.id, activity: userTag("x") });
    const asA = { "X-Stamp": p256Stamp(text, subA.key.publicKey, subA.key.privateKey) };
    const refused = await post(`${server.url}${DRY_RUN}`, text, asA);
    expect(refused.status).toBe(401);

    const queryText = JSON.stringify({ organizationId: subB.id });
    const query = await post(`${server.url}/public/v1/query/list_policies`, queryText, {
      "X-Stamp": p256Stamp(queryText, subA.key.publicKey, subA.key.privateKey),
    });
    expect(query.status).toBe(refused.status);
    expect(query.json.code).toBe(refused.json.code);

    // A sub-organization's user may not read its parent either.
    const upward = await dryRun({ activity: userTag("x") }, subA.key);
    expect(upward.status).toBe(401);
    // No stamp at all, or a stamp over other bytes.
    expect((await post(`${server.url}${DRY_RUN}`, text, {})).status).toBe(401);
    expect(
      (await post(`${server.url}${DRY_RUN}`, text, { "X-Stamp": p256Stamp(`${text} `, subA.key.publicKey, subA.key.privateKey) })).status,
    ).toBe(401);
  });

  it("lets a parent dry-run in its sub-organization, where it may read but not initiate", async () => {
    const own = await answer({ organizationId: subA.id, activity: userTag("mine") }, subA.key);
    expect(own).toMatchObject({ outcome: "ALLOW", byRootQuorum: true });

    const fromParent = await answer({ organizationId: subA.id, activity: userTag("theirs") });
    expect(fromParent.outcome).toBe("DENY");
    expect(fromParent.reason).toContain("read-only access to sub-organization");
    // An authentication activity a parent may initiate is the parent's decision (its root quorum here).
    expect(await answer({ organizationId: subA.id, activity: initOtp })).toMatchObject({ outcome: "ALLOW", byRootQuorum: true });

    const [past] = (await server.client(undefined, subA.id).getActivities({ organizationId: subA.id })).activities;
    const replayed = await answer({ organizationId: subA.id, activityId: past!.id });
    expect(replayed).toMatchObject({ outcome: "ALLOW", byRootQuorum: true });
    // ...but an activity of another organization is not found through this one.
    expect((await dryRun({ organizationId: subA.id, activityId: waiting.id })).status).toBe(404);
  });

  it("answers AUTHENTICATORS_NEEDED when the requester's MFA policy is not met by the stamping credential", async () => {
    await server.client().createMfaPolicy({
      userId: users.carol.userId,
      mfaPolicyName: "user tags need a passkey",
      condition: "activity.type == 'ACTIVITY_TYPE_CREATE_USER_TAG'",
      requiredAuthenticationMethods: [{ any: [{ type: "AUTHENTICATION_TYPE_PASSKEY" }] }],
      order: 1,
    });
    const gated = await answer({ activity: userTag("carol's") }, users.carol.key);
    expect(gated.outcome).toBe("AUTHENTICATORS_NEEDED");
    expect(gated.reason).toContain("MFA policy");
    expect(gated.policyEvaluations[0]).toMatchObject({ policyName: "ops may tag users", outcome: "OUTCOME_ALLOW" });
    // A denial stays a denial whatever the MFA.
    const draft = [{ policyName: "no", effect: "EFFECT_DENY", condition: "true" }];
    expect((await answer({ activity: userTag("carol's"), policies: draft }, users.carol.key)).outcome).toBe("DENY");
  });

  it("works with @turnkey/http's own stamper, as docs/guide.md shows", async () => {
    const client = new TurnkeyClient(
      { baseUrl: server.url },
      new ApiKeyStamper({ apiPublicKey: users.alice.key.publicKey, apiPrivateKey: users.alice.key.privateKey }),
    );
    const result = await client.request<Record<string, unknown>, Answer>(DRY_RUN, {
      organizationId: server.root.organizationId,
      activity: { type: "ACTIVITY_TYPE_DELETE_USER_TAGS", parameters: { userTagIds: [ops] } },
      policies: [{ policyName: "no tag deletions", effect: "EFFECT_DENY", condition: "activity.kind == 'DELETE_USER_TAGS'" }],
    });
    expect(result).toMatchObject({
      outcome: "DENY",
      reason: 'denied by policy "no tag deletions" (draft:0) (explicit deny)',
      policyEvaluations: [{ policyId: "draft:0", draftIndex: 0, policyName: "no tag deletions", outcome: "OUTCOME_DENY_EXPLICIT" }],
    });
  });

  it("writes nothing: every table's rows are the same before and after", async () => {
    const before = await snapshot(server.services.db);
    await answer({ activity: userTag("drafted") }, users.alice.key);
    await answer({ activity: keyTag("drafted") }, users.alice.key);
    await answer({ activity: { type: "ACTIVITY_TYPE_DELETE_USER_TAGS", parameters: { userTagIds: [ops] } } });
    await answer(
      { activity: userTag("drafted"), policies: [{ policyName: "d", effect: "EFFECT_DENY", condition: "true" }] },
      users.bob.key,
    );
    await answer({ activityId: waiting.id, policies: [{ policyName: "d", effect: "EFFECT_ALLOW" }] });
    await answer({ activityId: waiting.id }, users.carol.key);
    await answer({ activity: userTag("drafted") }, users.carol.key); // AUTHENTICATORS_NEEDED: no requirement is recorded
    await answer({ organizationId: subA.id, activity: userTag("theirs") });
    expect((await answer({ activity: initOtp })).outcome).toBe("ALLOW");
    expect((await answer({ organizationId: subA.id, activity: initOtp })).outcome).toBe("ALLOW");
    expect((await dryRun({ activity: userTag("x"), policies: [{ policyName: "b", effect: "EFFECT_ALLOW", condition: "(" }] })).status).toBe(
      400,
    );
    const after = await snapshot(server.services.db);
    expect(after).toEqual(before);
    expect(Object.keys(after)).toEqual(
      expect.arrayContaining(["activities", "votes", "policies", "policy_evaluations", "activity_claims"]),
    );
    expect((await server.client().getActivities({})).activities.some((a) => JSON.stringify(a.intent).includes("drafted"))).toBe(false);
  });

  it("is documented in /openapi.json", async () => {
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      paths: Record<string, { post: Record<string, unknown> }>;
    };
    const operation = document.paths[DRY_RUN]!.post;
    expect(operation.operationId).toBe("dryRunActivity");
    expect(JSON.stringify(operation.requestBody)).toContain("activityId");
    expect(JSON.stringify(operation.responses)).toContain("CONSENSUS_NEEDED");
  });
});
