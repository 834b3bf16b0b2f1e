import { randomUUID } from "node:crypto";
import { generateP256KeyPair } from "@turnkey/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refusal } from "../helpers/refusal.js";
import { rowCounts } from "../helpers/row-counts.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { userWithApiKey } from "../helpers/users.js";

/** `[0..width].all(v1, [0..width].all(v2, … true))`: width^depth predicate evaluations, each rebuilding the inner lists. */
function nestedAll(width: number, depth: number, innermost = "true"): string {
  const items = `[${Array.from({ length: width }, (_, i) => i).join(", ")}]`;
  let source = innermost;
  for (let level = depth; level >= 1; level--) source = `${items}.all(v${level}, ${source})`;
  return source;
}

describe("policy evaluation has a bounded cost, in every organization", () => {
  let server: TestServer;
  /** An attacker's own sub-organization, as signup gives anyone: its root user and a non-root user the policies govern. */
  let attacker: {
    organizationId: string;
    root: ReturnType<TestServer["client"]>;
    member: ReturnType<TestServer["client"]>;
    memberId: string;
  };

  beforeAll(async () => {
    server = await startTestServer();
    const rootKey = generateP256KeyPair();
    const { subOrganizationId } = await server.client().createSubOrganization({
      subOrganizationName: "attacker",
      rootQuorumThreshold: 1,
      rootUsers: [userWithApiKey("attacker", rootKey.publicKey)],
    });
    const root = server.client({ apiPublicKey: rootKey.publicKey, apiPrivateKey: rootKey.privateKey }, subOrganizationId);
    const memberKey = generateP256KeyPair();
    const { userIds } = await root.createUsers({ users: [{ ...userWithApiKey("member", memberKey.publicKey), userTags: [] }] });
    const member = server.client({ apiPublicKey: memberKey.publicKey, apiPrivateKey: memberKey.privateKey }, subOrganizationId);
    attacker = { organizationId: subOrganizationId, root, member, memberId: userIds[0]! };
    await root.createPolicy({
      policyName: "member may tag",
      effect: "EFFECT_ALLOW",
      consensus: `approvers.any(u, u.id == '${attacker.memberId}')`,
      condition: "activity.resource == 'USER'",
      notes: "",
    });
  });
  afterAll(async () => server.close());

  /** A policy stored without the create-time estimate (as one written before the limit existed would be). */
  async function storeDirectly(name: string, effect: string, condition: string): Promise<string> {
    const id = randomUUID();
    await server.services.db.query(
      "INSERT INTO policies (id, organization_id, name, effect, condition, consensus, time, notes, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, NULL, NULL, '', now(), now())",
      [id, attacker.organizationId, name, effect, condition],
    );
    return id;
  }

  it("refuses at create_policy, create_policies and update_policy an expression whose estimated cost is too high, naming the field", async () => {
    const expensive = nestedAll(20, 4);
    expect(expensive.length).toBeLessThan(600);
    const before = await rowCounts(server.services.db);
    const created = await refusal(
      attacker.root.createPolicy({ policyName: "dos", effect: "EFFECT_ALLOW", condition: expensive, notes: "" }),
    );
    expect(created.code).toBe(3);
    expect(created.message).toMatch(/Turnkey error 3: condition: .*estimated cost/);
    const batch = await refusal(
      attacker.root.createPolicies({
        policies: [
          { policyName: "fine", effect: "EFFECT_ALLOW", condition: "true", notes: "" },
          { policyName: "dos", effect: "EFFECT_ALLOW", consensus: `approvers.any(u, ${expensive})`, notes: "" },
        ],
      }),
    );
    expect(batch.code).toBe(3);
    expect(batch.message).toMatch(/Turnkey error 3: policies\[1\]\.consensus: .*estimated cost/);
    const { policyId } = await attacker.root.createPolicy({ policyName: "cheap", effect: "EFFECT_ALLOW", condition: "false", notes: "" });
    const updated = await refusal(attacker.root.updatePolicy({ policyId, policyCondition: expensive }));
    expect(updated.code).toBe(3);
    expect(updated.message).toMatch(/Turnkey error 3: policyCondition: .*estimated cost/);
    const after = await rowCounts(server.services.db);
    expect(after.policies).toBe(before.policies! + 1);
    await attacker.root.deletePolicy({ policyId });
  });

  it("refuses deeply nested expressions with 400 naming the nesting, not 'failed unexpectedly'", async () => {
    for (const [what, condition] of [
      ["'!' ×10,000", `${"!".repeat(10_000)}true`],
      ["'(' ×7,000", `${"(".repeat(7_000)}true${")".repeat(7_000)}`],
      ["'[' ×5,000", `${"[".repeat(5_000)}1${"]".repeat(5_000)} == []`],
      ["field chain", `activity${".params".repeat(2_000)} == 'x'`],
      ["index chain", `activity.params.user_ids${"[0]".repeat(4_000)} == 'x'`],
    ] as const) {
      const refused = await refusal(
        attacker.root.createPolicy({ policyName: `deep ${what}`, effect: "EFFECT_DENY", condition, notes: "" }),
      );
      expect(refused.code, what).toBe(3);
      expect(refused.message, what).toMatch(
        /Turnkey error 3: condition: invalid policy condition: at position \d+: the expression nests more than \d+ levels deep/,
      );
    }
    // A long flat chain of alternatives is not nesting.
    const alternatives = Array.from({ length: 600 }, (_, i) => `activity.type == 'T${i}'`).join(" || ");
    const { policyId } = await attacker.root.createPolicy({
      policyName: "many alternatives",
      effect: "EFFECT_DENY",
      condition: alternatives,
      notes: "",
    });
    await attacker.root.deletePolicy({ policyId });
  });

  it("stops an over-budget evaluation with OUTCOME_ERROR, recorded, while the other policies still decide", async () => {
    const heavy = await storeDirectly("stored before the limit", "EFFECT_ALLOW", nestedAll(20, 4));
    try {
      const done = await attacker.member.createUserTag({ userTagName: "after the heavy policy", userIds: [] });
      expect(done.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
      const { policyEvaluations } = await attacker.root.getPolicyEvaluations({ activityId: done.activity.id });
      const outcomes = Object.fromEntries(policyEvaluations[0]!.policyEvaluations.map((e) => [e.policyId, e.outcome]));
      expect(outcomes[heavy]).toBe("OUTCOME_ERROR");
      expect(Object.values(outcomes)).toContain("OUTCOME_ALLOW");
    } finally {
      await attacker.root.deletePolicy({ policyId: heavy });
    }
  });

  it("denies when a deny policy cannot be evaluated within the budget (it fails closed, not open)", async () => {
    // Evaluated to the end this condition is false; cut off by the budget nobody can know, so the activity is denied.
    const heavy = await storeDirectly("heavy deny", "EFFECT_DENY", nestedAll(20, 4, "false"));
    try {
      const refused = await refusal(attacker.member.createUserTag({ userTagName: "under a heavy deny", userIds: [] }));
      expect(refused.code).toBe(7);
      expect(refused.message).toContain(heavy);
      expect(refused.message).toMatch(/evaluation budget/);
    } finally {
      await attacker.root.deletePolicy({ policyId: heavy });
    }
  });

  it("denies when a stored deny policy no longer passes the nesting limit (written before it existed)", async () => {
    const deep = await storeDirectly("deep deny", "EFFECT_DENY", `${"!".repeat(100)}false`);
    try {
      const refused = await refusal(attacker.member.createUserTag({ userTagName: "under a deep deny", userIds: [] }));
      expect(refused.code).toBe(7);
      expect(refused.message).toContain(deep);
    } finally {
      await attacker.root.deletePolicy({ policyId: deep });
    }
  });

  it("bounds the whole decision: policies that each pass the estimate share one budget, the rest are OUTCOME_ERROR", async () => {
    // Each costs about half of one evaluation's budget (54,442 steps); twenty exceed the decision's.
    const near = nestedAll(10, 4, "v4 >= 0");
    const { policyIds: ids } = await attacker.root.createPolicies({
      policies: Array.from({ length: 20 }, (_, i) => ({
        policyName: `near the budget ${i}`,
        effect: "EFFECT_ALLOW" as const,
        condition: near,
        notes: "",
      })),
    });
    try {
      const done = await attacker.member.createUserTag({ userTagName: "many heavy policies", userIds: [] });
      const { policyEvaluations } = await attacker.root.getPolicyEvaluations({ activityId: done.activity.id });
      const outcomes = Object.fromEntries(policyEvaluations[0]!.policyEvaluations.map((e) => [e.policyId, e.outcome]));
      const heavyOutcomes = ids.map((id) => outcomes[id]);
      expect(heavyOutcomes[0]).toBe("OUTCOME_ALLOW");
      expect(heavyOutcomes.at(-1)).toBe("OUTCOME_ERROR");
    } finally {
      await attacker.root.deletePolicies({ policyIds: ids });
    }
  });
});
