import { describe, expect, it } from "vitest";
import {
  Budget,
  compilePolicyExpression,
  costRefusal,
  estimateCost,
  evaluateExpression,
  PolicyBudgetExceededError,
  POLICY_LIMITS,
  PolicySyntaxError,
} from "../../src/policy/language/index.js";
import { appendixAExpressions } from "./appendix-a.js";

const NOW = Date.UTC(2026, 5, 15, 12, 0, 0);

/** `[0..width].all(v1, [0..width].all(v2, … innermost))`. */
function nestedAll(width: number, depth: number, innermost = "true"): string {
  const items = `[${Array.from({ length: width }, (_, i) => i).join(", ")}]`;
  let source = innermost;
  for (let level = depth; level >= 1; level--) source = `${items}.all(v${level}, ${source})`;
  return source;
}

describe("the cost of a policy expression", () => {
  const examples = appendixAExpressions();
  it.skipIf(!examples)("every example policy of the documentation passes the static estimate", () => {
    let highest = 0;
    for (const { example, field, source } of examples!) {
      const expr = compilePolicyExpression(source, field);
      expect(costRefusal(expr), `${example} ${field}: ${source}`).toBeUndefined();
      highest = Math.max(highest, estimateCost(expr).steps);
    }
    expect(highest).toBeLessThan(POLICY_LIMITS.evaluationSteps / 10);
  });

  it("estimates nested iteration as the product of the list lengths", () => {
    const cheap = estimateCost(compilePolicyExpression(nestedAll(10, 2), "condition")).steps;
    const costly = estimateCost(compilePolicyExpression(nestedAll(10, 3), "condition")).steps;
    expect(costly / cheap).toBeGreaterThan(9);
    expect(costRefusal(compilePolicyExpression(nestedAll(20, 4), "condition"))).toMatch(
      /estimated cost is \d+ steps, more than the 100000/,
    );
    expect(costRefusal(compilePolicyExpression("approvers.all(a, credentials.any(c, c.user_id == a.id))", "consensus"))).toBeUndefined();
  });

  it("the estimate bounds what an evaluation charges, for lists of the assumed length", () => {
    const keywords = {
      approvers: Array.from({ length: POLICY_LIMITS.assumedListLength }, (_, i) => ({
        id: `u${i}`,
        tags: ["a", "b"],
        email: "",
        alias: "",
      })),
      credentials: [],
    };
    for (const source of [
      "approvers.all(a, approvers.any(b, b.id == a.id && 'a' in b.tags))",
      nestedAll(12, 3, "v3 >= 0"),
      "approvers.filter(a, a.tags.contains('b')).count() == 16",
    ]) {
      const expr = compilePolicyExpression(source, "consensus");
      const budget = Budget.forEvaluation();
      evaluateExpression(expr, { keywords, now: NOW, budget });
      expect(budget.steps, source).toBeLessThanOrEqual(estimateCost(expr).steps);
      expect(budget.allocations, source).toBeLessThanOrEqual(estimateCost(expr).allocations);
    }
  });

  it("stops an evaluation at its step budget, counted in steps, whatever the machine's speed", () => {
    const expr = compilePolicyExpression(nestedAll(20, 4), "condition");
    const budget = Budget.forEvaluation();
    expect(() => evaluateExpression(expr, { keywords: {}, now: NOW, budget })).toThrow(PolicyBudgetExceededError);
    expect(budget.steps).toBe(POLICY_LIMITS.evaluationSteps + 1);
  });

  it("stops an evaluation at its allocation budget", () => {
    // Few steps, many values: a slice of a long list, again and again.
    const expr = compilePolicyExpression("approvers.all(a, approvers[0..200000].count() > 0)", "consensus");
    const approvers = Array.from({ length: 200_000 }, () => ({ id: "x", tags: [], email: "", alias: "" }));
    const budget = Budget.forEvaluation();
    expect(() => evaluateExpression(expr, { keywords: { approvers, credentials: [] }, now: NOW, budget })).toThrow(/allocated values/);
    expect(budget.steps).toBeLessThan(POLICY_LIMITS.evaluationSteps);
  });

  it("shares the decision's budget between evaluations", () => {
    const decision = Budget.forDecision();
    const expr = compilePolicyExpression(nestedAll(10, 4, "v4 >= 0"), "condition");
    expect(costRefusal(expr)).toBeUndefined();
    let completed = 0;
    for (let i = 0; i < 30; i++) {
      try {
        evaluateExpression(expr, { keywords: {}, now: NOW, budget: decision.child() });
        completed++;
      } catch (error) {
        expect(error).toBeInstanceOf(PolicyBudgetExceededError);
        expect((error as Error).message).toMatch(/decision/);
        break;
      }
    }
    expect(completed).toBeGreaterThan(0);
    expect(completed).toBe(Math.floor(POLICY_LIMITS.decisionSteps / estimateCost(expr).steps));
    expect(decision.steps).toBeLessThanOrEqual(POLICY_LIMITS.decisionSteps + 1);
  });

  it("refuses nesting beyond the limit in the parser, and accepts long flat chains", () => {
    const nested = (depth: number) => `${"(".repeat(depth)}true${")".repeat(depth)}`;
    expect(() => compilePolicyExpression(nested(POLICY_LIMITS.maxNesting - 1), "condition")).not.toThrow();
    for (const source of [
      nested(POLICY_LIMITS.maxNesting + 1),
      `${"!".repeat(100_000)}true`,
      `activity${".params".repeat(100)} == 'x'`,
      `${"[".repeat(100)}1${"]".repeat(100)} == []`,
    ]) {
      expect(() => compilePolicyExpression(source, "condition")).toThrow(PolicySyntaxError);
      expect(() => compilePolicyExpression(source, "condition")).toThrow(/nests more than 64 levels deep/);
    }
    const flat = Array.from({ length: 5_000 }, (_, i) => `activity.type == 'T${i}'`).join(" && ");
    const expr = compilePolicyExpression(flat, "condition");
    expect(
      evaluateExpression(expr, { keywords: { activity: { type: "T0", kind: "", resource: "", action: "", params: {} } }, now: NOW }),
    ).toBe(false);
  });
});
