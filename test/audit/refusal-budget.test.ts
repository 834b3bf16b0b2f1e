import { describe, expect, it } from "vitest";
import { REFUSAL_WINDOW_MS, RefusalBudget } from "../../src/audit/refusal-budget.js";

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);
const stamp = { kind: "activity", operation: "create_user_tag", httpStatus: 401 };
const denied = { kind: "activity", operation: "create_users", httpStatus: 403 };
const alice = { key: "credential-a", entry: { userId: "alice" } };

describe("refusal budget", () => {
  it("records the first refusals of a minute in full and counts the rest into one summary once the minute is over", () => {
    const budget = new RefusalBudget(3);
    const admitted = Array.from({ length: 10 }, (_, i) => budget.admit("org", undefined, i < 8 ? stamp : denied, at(i * 1000)));
    expect(admitted).toEqual([true, true, true, false, false, false, false, false, false, false]);
    expect(budget.takeSummaries(at(REFUSAL_WINDOW_MS - 1))).toEqual([]);
    expect(budget.takeSummaries(at(REFUSAL_WINDOW_MS))).toEqual([
      {
        organizationId: "org",
        requester: undefined,
        count: 7,
        first: at(3000),
        last: at(9000),
        outcomes: [
          { ...stamp, count: 5 },
          { ...denied, count: 2 },
        ],
      },
    ]);
    // Answered once; the next minute starts a new budget.
    expect(budget.takeSummaries(at(2 * REFUSAL_WINDOW_MS))).toEqual([]);
    expect(budget.admit("org", undefined, stamp, at(REFUSAL_WINDOW_MS + 1))).toBe(true);
  });

  it("keeps one budget per organization and requester", () => {
    const budget = new RefusalBudget(1);
    expect(budget.admit("org", undefined, stamp, at(0))).toBe(true);
    expect(budget.admit("org", undefined, stamp, at(1))).toBe(false);
    expect(budget.admit("org", alice, denied, at(2))).toBe(true);
    expect(budget.admit("other", undefined, stamp, at(3))).toBe(true);
    expect(budget.admit("org", alice, denied, at(4))).toBe(false);
    const summaries = budget.takeSummaries(at(5), true);
    expect(summaries.map((s) => [s.organizationId, s.requester, s.count])).toEqual([
      ["org", undefined, 1],
      ["org", { userId: "alice" }, 1],
    ]);
  });

  it("closes a window when the next refusal comes after its minute, and sums it up at the next take", () => {
    const budget = new RefusalBudget(0);
    expect(budget.admit("org", undefined, stamp, at(0))).toBe(false);
    expect(budget.admit("org", undefined, stamp, at(REFUSAL_WINDOW_MS + 5))).toBe(false);
    expect(budget.takeSummaries(at(REFUSAL_WINDOW_MS + 6)).map((s) => [s.count, s.first, s.last])).toEqual([[1, at(0), at(0)]]);
    expect(budget.takeSummaries(at(0), true).map((s) => [s.count, s.first])).toEqual([[1, at(REFUSAL_WINDOW_MS + 5)]]);
  });

  it("holds no window for an organization forgotten (one that does not exist), and gives back summaries put back", () => {
    const budget = new RefusalBudget(1);
    expect(budget.admit("ghost", undefined, stamp, at(0))).toBe(true);
    budget.forget("ghost", undefined);
    expect(budget.admit("ghost", undefined, stamp, at(1))).toBe(true);
    budget.forget("ghost", undefined);
    expect(budget.takeSummaries(at(0), true)).toEqual([]);
    budget.admit("org", alice, stamp, at(0));
    budget.admit("org", alice, stamp, at(1));
    const taken = budget.takeSummaries(at(0), true);
    expect(taken).toHaveLength(1);
    budget.putBack(taken);
    expect(budget.takeSummaries(at(0))).toEqual(taken);
  });
});
