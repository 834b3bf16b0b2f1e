import type { ActivityRow } from "../../records/activity.js";
import { activityWithFingerprint } from "../../domains/activities/votes.js";
import { ApiError } from "../../errors.js";
import { isUniqueViolation, type Queryable } from "../../store/database.js";
import { AlreadySubmitted } from "./persist.js";

/** The body was submitted before (or concurrently): it is that activity, whatever this request would have done. */
export class SameBodyAgain extends Error {
  constructor(readonly activity: ActivityRow) {
    super(`activity ${activity.id} has this body`);
  }
}

/** Step "look up the fingerprint": ends the pipeline with the earlier activity of the same body, when there is one. */
export async function refuseSameBody(db: Queryable, fingerprint: string): Promise<void> {
  const earlier = await activityWithFingerprint(db, fingerprint);
  if (earlier) throw new SameBodyAgain(earlier);
}

/**
 * The activity of the same body behind a refusal: a resubmitted body answers its activity even when what the
 * first run changed no longer validates or is no longer allowed, and a concurrent twin's insert wins over this one's.
 */
export async function sameBodyBehind(error: unknown, db: Queryable, fingerprint: string): Promise<ActivityRow | undefined> {
  if (error instanceof SameBodyAgain) return error.activity;
  if (error instanceof AlreadySubmitted || error instanceof ApiError || isUniqueViolation(error))
    return activityWithFingerprint(db, fingerprint);
  return undefined;
}
