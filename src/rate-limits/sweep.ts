import type { LimitSettings } from "../config.js";
import type { Services } from "../services.js";
import type { Queryable } from "../store/database.js";

/** Rows one statement of the sweep deletes at most: each statement holds the store for a few milliseconds. */
export const SWEEP_BATCH_ROWS = 1000;
/** Statements one sweep runs at most per table; what is left waits for the next sweep. */
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
 * Rows that no decision reads any more, each table with the time column that says so and the moment before which
 * a row is dead: budget events past every window, and spent proofs (verification tokens, OIDC tokens) past their
 * token's expiry — an expired token is refused before its spend is looked up, so forgetting the spend changes nothing.
 */
function deadRows(limits: LimitSettings, now: Date): Array<{ table: string; column: string; before: Date }> {
  return [
    { table: "rate_limit_events", column: "at", before: new Date(now.getTime() - longestBudgetWindowSeconds(limits) * 1000) },
    { table: "consumed_verification_tokens", column: "expires_at", before: now },
    { table: "spent_oidc_tokens", column: "expires_at", before: now },
  ];
}

/**
 * Deletes the dead rows of each table, in batches of at most SWEEP_BATCH_ROWS, each its own statement (no
 * transaction held between them). Safe across a cluster: any process may sweep at any time, two sweeps deleting the
 * same rows only wait for each other's row locks, and nothing a decision still reads is touched. Answers whether a
 * table was left with more dead rows than one sweep deletes.
 */
export async function sweepDeadRows(db: Queryable, limits: LimitSettings, now: Date): Promise<{ deleted: number; behind: boolean }> {
  let deleted = 0;
  let behind = false;
  for (const { table, column, before } of deadRows(limits, now)) {
    let n = SWEEP_BATCH_ROWS;
    for (let batch = 0; batch < SWEEP_BATCHES && n === SWEEP_BATCH_ROWS; batch++) {
      // Table and column names come from the list above, never from input.
      const rows = await db.query<{ n: number }>(
        `WITH gone AS (
           DELETE FROM ${table} WHERE ctid IN (SELECT ctid FROM ${table} WHERE ${column} < $1 LIMIT $2) RETURNING 1
         ) SELECT count(*)::int AS n FROM gone`,
        [before, SWEEP_BATCH_ROWS],
      );
      n = rows[0]?.n ?? 0;
      deleted += n;
    }
    if (n === SWEEP_BATCH_ROWS) behind = true;
  }
  return { deleted, behind };
}

/** A sweep run from a background loop at most every SWEEP_INTERVAL_SECONDS of the server's clock. */
export function periodicSweep(services: Services): () => Promise<void> {
  let lastSweepMs: number | undefined;
  return async () => {
    const now = services.clock();
    if (lastSweepMs !== undefined && now.getTime() - lastSweepMs < SWEEP_INTERVAL_SECONDS * 1000) return;
    const { behind } = await sweepDeadRows(services.db, services.limits, now);
    // A sweep that fell behind sweeps again on the next turn instead of an interval later.
    lastSweepMs = behind ? undefined : now.getTime();
  };
}
