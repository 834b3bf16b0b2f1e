import type { LimitSettings } from "../config.js";
import type { Services } from "../services.js";
import type { Queryable } from "../store/database.js";

/** Rows one statement of the sweep deletes at most: each statement holds the store for a few milliseconds. */
export const SWEEP_BATCH_ROWS = 1000;
/** Statements one sweep runs at most; what is left waits for the next sweep. */
const SWEEP_BATCHES = 10;
/** How often (by the server's clock) the background work sweeps. */
const SWEEP_INTERVAL_SECONDS = 60;

/**
 * The longest window any database budget counts in. An event older than it can no longer be counted by any
 * budget (checkBudget itself deletes its key's events past the window before counting), so deleting it changes
 * no decision. Every budget in `rate_limit_events` uses the OTP window today.
 */
export function longestBudgetWindowSeconds(limits: LimitSettings): number {
  return Math.max(limits.otpWindowSeconds);
}

/**
 * Deletes budget events older than every window, in batches of at most SWEEP_BATCH_ROWS, each its own statement
 * (no transaction held between them). Safe across a cluster: any process may sweep at any time, two sweeps
 * deleting the same rows only wait for each other's row locks, and nothing a budget still counts is touched.
 * Answers the number of rows deleted.
 */
export async function sweepBudgetEvents(db: Queryable, limits: LimitSettings, now: Date): Promise<number> {
  const before = new Date(now.getTime() - longestBudgetWindowSeconds(limits) * 1000);
  let deleted = 0;
  for (let batch = 0; batch < SWEEP_BATCHES; batch++) {
    const rows = await db.query<{ n: number }>(
      `WITH gone AS (
         DELETE FROM rate_limit_events WHERE ctid IN (SELECT ctid FROM rate_limit_events WHERE at < $1 LIMIT $2) RETURNING 1
       ) SELECT count(*)::int AS n FROM gone`,
      [before, SWEEP_BATCH_ROWS],
    );
    const n = rows[0]?.n ?? 0;
    deleted += n;
    if (n < SWEEP_BATCH_ROWS) break;
  }
  return deleted;
}

/** A sweep run from a background loop at most every SWEEP_INTERVAL_SECONDS of the server's clock. */
export function periodicSweep(services: Services): () => Promise<void> {
  let lastSweepMs: number | undefined;
  return async () => {
    const now = services.clock();
    if (lastSweepMs !== undefined && now.getTime() - lastSweepMs < SWEEP_INTERVAL_SECONDS * 1000) return;
    const deleted = await sweepBudgetEvents(services.db, services.limits, now);
    // A full sweep may have left rows behind: sweep again on the next turn instead of an interval later.
    lastSweepMs = deleted < SWEEP_BATCHES * SWEEP_BATCH_ROWS ? now.getTime() : undefined;
  };
}
