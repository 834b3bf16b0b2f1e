import { describe, expect, it } from "vitest";
import {
  compilePolicyExpression,
  evaluateExpression,
  PolicyEvaluationError,
  PolicySyntaxError,
  type PolicyField,
  type Value,
} from "../../src/policy/language/index.js";
import { appendixAExpressions } from "./appendix-a.js";

const NOW = Date.UTC(2026, 5, 15, 12, 0, 0);
const keywords: Record<string, Value> = {
  activity: {
    type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
    kind: "SIGN_TRANSACTION",
    resource: "PRIVATE_KEY",
    action: "SIGN",
    params: { type: "TRANSACTION_TYPE_ETHEREUM", user_ids: ["u1"] },
  },
  eth: {
    tx: {
      to: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
      data: "0xa9059cbb000000000000000000000000b1",
      value: 10n ** 18n,
      chain_id: 8453n,
      contract_call_args: {
        wad: 5n,
        calls: [
          ["0xabc", 0n],
          ["0xabc", 0n],
        ],
      },
    },
  },
  approvers: [
    { id: "alice", tags: ["ops"], email: "", alias: "" },
    { id: "bob", tags: ["ops", "security"], email: "", alias: "" },
  ],
};

function run(source: string, field: PolicyField = "condition", now = NOW, extra: Record<string, Value | undefined> = {}): boolean {
  return evaluateExpression(compilePolicyExpression(source, field), { keywords: { ...keywords, ...extra }, now });
}

function syntaxError(source: string, field: PolicyField = "condition"): PolicySyntaxError {
  try {
    compilePolicyExpression(source, field);
  } catch (error) {
    if (error instanceof PolicySyntaxError) return error;
    throw error;
  }
  throw new Error(`expected ${source} to be refused`);
}

describe("the policy language", () => {
  const examples = appendixAExpressions();
  it.skipIf(!examples)("parses and type-checks every example policy of the documentation (Appendix A)", () => {
    expect(examples!.length).toBeGreaterThan(200);
    for (const { example, field, source } of examples!) {
      expect(() => compilePolicyExpression(source, field), `${example} ${field}: ${source}`).not.toThrow();
    }
  });

  it("evaluates logic, comparisons and membership", () => {
    expect(run("true && !false")).toBe(true);
    expect(run("false || 1 < 2")).toBe(true);
    expect(run("!(1 >= 2) && 2 <= 2 && 3 > 2 && 'a' != 'b'")).toBe(true);
    expect(run("activity.resource in ['AUTH', 'PRIVATE_KEY']")).toBe(true);
    expect(run("'u1' in activity.params.user_ids && activity.params.user_ids.count() == 1")).toBe(true);
    expect(run("eth.tx.chain_id == '8453' && eth.tx.chain_id == 8453")).toBe(true);
  });

  it("compares Ethereum addresses regardless of checksum case", () => {
    expect(run("eth.tx.to == '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'")).toBe(true);
    expect(run("eth.tx.to in ['0x833589FCD6EDB6E08F4C7C32D4F71B54BDA02913']")).toBe(true);
  });

  it("indexes, slices and reads fields and keys", () => {
    expect(run("eth.tx.data[0..10] == '0xa9059cbb'")).toBe(true);
    expect(run("'abc'[0] == 'a' && 'abc'[1..] == 'bc' && [1, 2, 3][0..2] == [1, 2]")).toBe(true);
    expect(run("eth.tx.contract_call_args['wad'] < 1000000000000000000")).toBe(true);
    expect(run("eth.tx.contract_call_args['calls'].all(call, call[0] == '0xabc' && call[1] == 0)")).toBe(true);
  });

  it("has all, any, filter, count (with or without parentheses) and contains", () => {
    expect(run("approvers.all(u, u.tags.contains('ops'))", "consensus")).toBe(true);
    expect(run("approvers.any(u, u.id == 'bob')", "consensus")).toBe(true);
    expect(run("approvers.filter(u, u.tags.contains('security')).count() == 1", "consensus")).toBe(true);
    expect(run("approvers.count == 2 && approvers.count() >= 2", "consensus")).toBe(true);
    expect(run("approvers.any(u, u.id == 'carol')", "consensus")).toBe(false);
  });

  it("holds i128 and u256 integers", () => {
    expect(
      run(
        "eth.tx.value > 170141183460469231731687303715884105727 || eth.tx.value < 115792089237316195423570985008687907853269984665640564039457584007913129639935",
      ),
    ).toBe(true);
    expect(syntaxError("eth.tx.value < 115792089237316195423570985008687907853269984665640564039457584007913129639936").message).toContain(
      "u256",
    );
  });

  it("compares timestamps with time.now", () => {
    expect(run("time.now >= Timestamp('2026-06-01T00:00:00Z') && time.now < Timestamp('2026-07-01T00:00:00+00:00')", "time")).toBe(true);
    expect(run("time.now < Timestamp('2026-06-15T11:59:59Z')", "time")).toBe(false);
    expect(syntaxError("time.now < Timestamp('2026-06-15T11:59:59-05:00')", "time").message).toContain("zero UTC offset");
  });

  it("opens CronSpan windows in the named zone, elapsed time across DST as documented", () => {
    const span = "CronSpan('0 22 * * *', '8h', 'America/New_York')";
    // Spring forward (2026-03-08): 22:00 EST + 8 h ends at 07:00 EDT.
    expect(run(span, "time", Date.UTC(2026, 2, 8, 10, 59))).toBe(true);
    expect(run(span, "time", Date.UTC(2026, 2, 8, 11, 0))).toBe(false);
    // Fall back (2026-11-01): 22:00 EDT + 8 h ends at 05:00 EST.
    expect(run(span, "time", Date.UTC(2026, 10, 1, 9, 59))).toBe(true);
    expect(run(span, "time", Date.UTC(2026, 10, 1, 10, 0))).toBe(false);
    // Weekdays 9:00–17:00 New York; 2026-06-15 is a Monday, 12:00 UTC is 08:00 EDT.
    const office = "CronSpan('0 9 * * 1-5', '8h', 'America/New_York')";
    expect(run(office, "time", Date.UTC(2026, 5, 15, 12, 0))).toBe(false);
    expect(run(office, "time", Date.UTC(2026, 5, 15, 13, 0))).toBe(true);
    expect(run(office, "time", Date.UTC(2026, 5, 13, 14, 0))).toBe(false);
    expect(run("!" + office, "time", Date.UTC(2026, 5, 13, 14, 0))).toBe(true);
    // Day-of-month and day-of-week are OR'd: the 13th (a Saturday) fires through its day-of-month.
    expect(run("CronSpan('0 0 13 * 1', '1d', 'UTC')", "time", Date.UTC(2026, 5, 13, 14, 0))).toBe(true);
  });

  it("does not short-circuit: an error in any clause is the policy's outcome", () => {
    const source = "wallet.id == 'w1' || private_key.id == 'k1'";
    const env = { keywords: { ...keywords, wallet: { id: "w1", imported: false, exported: false, label: "" } }, now: NOW };
    expect(() => evaluateExpression(compilePolicyExpression(source, "condition"), env)).toThrow(PolicyEvaluationError);
    expect(() => run("true || wallet.id == 'x'")).toThrow(/MissingField/);
    expect(() => run("activity.params.user_ids[3] == 'x'")).toThrow(/out of range/);
    expect(() => run("activity.params.missing == 'x'")).toThrow(/MissingField/);
  });

  it("refuses what does not parse or type-check, pointing at the position and what was expected", () => {
    expect(syntaxError("activity.type == ").message).toBe(
      "at position 17: expected a value (a name, a 'string', a number, true, false, a list or a parenthesis), but found the end of the expression",
    );
    expect(syntaxError("(activity.type == 'x'").message).toContain("expected ')'");
    expect(syntaxError('activity.type == "x"').position).toBe(17);
    expect(syntaxError("wallet.idd == 'x'").message).toContain("Wallet has no field 'idd'");
    expect(syntaxError("approvers.count() > 1").message).toContain("unknown name 'approvers'");
    expect(syntaxError("activity.type").message).toContain("must be a bool");
    expect(syntaxError("eth.tx.to in 'x'").message).toContain("must be a list");
    expect(syntaxError("CronSpan('*/5 * * * *', '8h', 'UTC')", "time").message).toContain("steps");
    expect(syntaxError("CronSpan('0 9 * * *', '8d', 'UTC')", "time").message).toContain("at most 7 days");
    expect(syntaxError("CronSpan('0 9 * * *', '8h', 'Mars/Base')", "time").message).toContain("IANA");
  });
});
