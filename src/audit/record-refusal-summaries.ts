import type { Queryable } from "../store/database.js";
import { insertAuditEvent } from "./record.js";
import type { RefusalBudget } from "./refusal-budget.js";

/**
 * Writes a `refusals.counted` event for each window of the refusal budget over by `now` (every window with `all`,
 * as the process stops) in which refusals were counted instead of recorded: how many, from when to when, by kind,
 * operation and HTTP status, and the requester when one was authenticated. A summary the store failed to take is
 * kept for the next call. Answers how many it wrote.
 */
export async function recordRefusalSummaries(db: Queryable, refusals: RefusalBudget, now: Date, all = false): Promise<number> {
  const summaries = refusals.takeSummaries(now, all);
  let written = 0;
  for (const [i, summary] of summaries.entries()) {
    const event = {
      organizationId: summary.organizationId,
      time: now,
      type: "refusals.counted",
      details: {
        count: summary.count,
        first: summary.first.toISOString(),
        last: summary.last.toISOString(),
        requester: summary.requester,
        outcomes: summary.outcomes.map(({ kind, operation, httpStatus, count }) => ({ kind, operation, httpStatus, count })),
      },
    };
    try {
      if (await insertAuditEvent(db, event, { ifOrganizationExists: true })) written++;
    } catch (error) {
      refusals.putBack(summaries.slice(i));
      throw error;
    }
  }
  return written;
}
