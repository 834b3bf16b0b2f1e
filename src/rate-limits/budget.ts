import { RateLimitedError } from "../errors.js";
import type { Queryable } from "../store/database.js";

/** At most `limit` events of one key in any `windowSeconds` (a sliding window), counted in the database. */
export interface Budget {
  key: string;
  limit: number;
  windowSeconds: number;
  /** What the budget is, for the refusal: "wrong guesses for contact a@b.example". */
  describe: string;
}

/**
 * Spends one event of a budget, or refuses as checkBudget does. The key's checks are serialized until the end
 * of the caller's transaction (every process of a cluster takes the same advisory lock), so that two requests
 * cannot both see the last free place.
 */
export async function takeFromBudget(tx: Queryable, budget: Budget, now: Date): Promise<void> {
  await tx.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`budget:${budget.key}`]);
  await checkBudget(tx, budget, now);
  await spendBudget(tx, budget.key, now);
}

/** Refuses with RESOURCE_EXHAUSTED, naming the budget and when to retry, once the window holds `limit` events. */
export async function checkBudget(tx: Queryable, budget: Budget, now: Date): Promise<void> {
  const since = new Date(now.getTime() - budget.windowSeconds * 1000);
  await tx.query("DELETE FROM rate_limit_events WHERE key = $1 AND at <= $2", [budget.key, since]);
  const [counted] = await tx.query<{ n: number; oldest: Date | null }>(
    "SELECT count(*)::int AS n, min(at) AS oldest FROM rate_limit_events WHERE key = $1",
    [budget.key],
  );
  if (counted!.n < budget.limit) return;
  const freesAt = new Date(counted!.oldest!).getTime() + budget.windowSeconds * 1000;
  const retryAfterSeconds = Math.max(1, Math.ceil((freesAt - now.getTime()) / 1000));
  throw new RateLimitedError(
    `too many ${budget.describe}: at most ${budget.limit} per ${windowText(budget.windowSeconds)}; try again in ${retryAfterSeconds} s (after ${new Date(freesAt).toISOString()})`,
    retryAfterSeconds,
  );
}

/** Counts one event against a budget. */
export async function spendBudget(tx: Queryable, key: string, now: Date): Promise<void> {
  await tx.query("INSERT INTO rate_limit_events (key, at) VALUES ($1, $2)", [key, now]);
}

export function windowText(seconds: number): string {
  if (seconds % 3600 === 0) return seconds === 3600 ? "hour" : `${seconds / 3600} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? "minute" : `${seconds / 60} minutes`;
  return `${seconds} seconds`;
}
