import { setTimeout as sleep } from "node:timers/promises";
import { ApiError, GrpcCode, internalError, type FieldViolation, type ErrorCode } from "../../errors.js";
import type { Database, Queryable } from "../../store/database.js";
import { ACTIVITY_WITH_FINGERPRINT } from "../../domains/activities/votes.js";
import type { ActivityRow } from "../../records/activity.js";
import { SameBodyAgain } from "./fingerprint.js";
import { DELETE_OWN_CLAIM } from "../../records/activity-claim.js";

/**
 * A body's fingerprint is older than the liveness window (one hour, plus five minutes of clock skew) once
 * its claim is this old: no request can carry it any more, so its claim is dropped.
 */
const CLAIM_LIFETIME_MS = 65 * 60 * 1000;
/** How long a request waits for another one with the same fingerprint; a preparation takes seconds. */
const WAIT_MS = 60_000;

/** What a waiting request finds once the claim's holder is done. */
export type ClaimHeld = { kind: "claimed"; claim: Claim } | { kind: "released" };

/** How often a held claim is renewed: the renewal also keeps one of the holder's database sessions open (see `claimFingerprint`). */
const RENEW_MS = 2_000;

/** A fingerprint claimed by this request (see migrations 0014 and 0031): it alone prepares and executes that body's activity. */
export class Claim {
  private readonly renewal: NodeJS.Timeout;

  constructor(
    readonly fingerprint: string,
    private readonly db: Queryable,
    now: () => Date,
  ) {
    // Renewed while held: a pool closes idle connections, and a live holder without a session would look gone.
    this.renewal = setInterval(() => {
      db.query<{ renewed: number }>(
        "UPDATE activity_claims SET claimed_at = $2 WHERE fingerprint = $1 AND holder = current_setting('application_name') AND refusal IS NULL RETURNING 1 AS renewed",
        [fingerprint, now()],
      ).then(
        (rows) => rows.length === 0 && this.stopRenewing(),
        () => undefined, // the store is unreachable for now: the next renewal tries again
      );
    }, RENEW_MS);
    this.renewal.unref();
  }

  private stopRenewing(): void {
    clearInterval(this.renewal);
  }

  /** Gone with the activity or the vote it belongs to: called inside that transaction. */
  async release(tx: Queryable = this.db): Promise<void> {
    this.stopRenewing();
    await tx.query(DELETE_OWN_CLAIM("$1"), [this.fingerprint]);
  }

  /** Deleted by the statement that inserted the activity (`insertNewActivity`'s `releaseClaim`), inside its transaction. */
  releasedByInsert(): void {
    this.stopRenewing();
  }

  /**
   * The request ended in `error` without writing its activity. When its preparation ran (an outside call may
   * have happened), the claim keeps the error and the same body is answered with it; otherwise it is released.
   */
  async settle(error: unknown, prepared: boolean): Promise<void> {
    if (!prepared) return this.release();
    this.stopRenewing();
    await this.db.query(
      "UPDATE activity_claims SET refusal = $2::jsonb WHERE fingerprint = $1 AND holder IS NOT DISTINCT FROM current_setting('application_name')",
      [this.fingerprint, JSON.stringify(refusalOf(error))],
    );
  }
}

interface StoredRefusal {
  code: number;
  message: string;
  turnkeyErrorCode?: ErrorCode;
  fieldViolations: FieldViolation[];
  httpStatus: number;
}

function refusalOf(error: unknown): StoredRefusal {
  const refused =
    error instanceof ApiError ? error : internalError("an earlier request with this body failed after its preparation; sign a new request");
  return {
    code: refused.code,
    message: refused.message,
    turnkeyErrorCode: refused.turnkeyErrorCode,
    fieldViolations: refused.fieldViolations,
    httpStatus: refused.httpStatus,
  };
}

function refusalError(stored: StoredRefusal): ApiError {
  return new ApiError(stored.code, stored.message, stored.turnkeyErrorCode, stored.fieldViolations, stored.httpStatus);
}

/**
 * Claims `fingerprint` for this request, waiting while another request (in any process) holds it. With `sameBody`,
 * each attempt also reads the body's activity, issued right after the claim without waiting for it (one round trip): once
 * there is one, the request is that activity (SameBodyAgain), whether it won the claim (then released) or not.
 * `whileHeld` is asked after each failed attempt: it may end the wait (by throwing) when what the other request did
 * is visible. A claim that ended in an error after its preparation is answered with that error;
 * (a vote, `forVote`, is on an activity that exists, so such a refusal answers nothing any more: it takes the claim).
 * A claim is taken over at once when its holder is gone: no database session carries the holder's name (the
 * process died during the preparation, and its connections went with it; src/store/process-session.ts). One held
 * past WAIT_MS by a live holder is a 503 UNAVAILABLE, never taken over.
 */
export async function claimFingerprint(
  db: Database,
  fingerprint: string,
  now: () => Date,
  options: { forVote?: boolean; sameBody?: boolean; whileHeld?: () => Promise<void> } = {},
): Promise<Claim> {
  const deadline = Date.now() + WAIT_MS;
  for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
    const at = now();
    const params = [fingerprint, at, new Date(at.getTime() - CLAIM_LIFETIME_MS), options.forVote === true];
    const [row, earlier] = options.sameBody
      ? await db.transaction(async (tx) => {
          await tx.exec(UNFLUSHED_COMMIT);
          return Promise.all([
            tx.query<ClaimAttempt>(CLAIM, params).then(([claimed]) => claimed),
            tx.queryThenCommit<ActivityRow>(ACTIVITY_WITH_FINGERPRINT, [fingerprint]).then(([activity]) => activity),
          ]);
        })
      : [(await db.query<ClaimAttempt>(CLAIM, params))[0], undefined];
    if (row?.won) {
      const claim = new Claim(fingerprint, db, now);
      if (!earlier) return claim;
      await claim.release();
    } else if (row?.refusal) throw refusalError(row.refusal);
    if (earlier) throw new SameBodyAgain(earlier);
    await options.whileHeld?.();
    if (Date.now() > deadline) {
      throw new ApiError(
        GrpcCode.UNAVAILABLE,
        "a request with the same body is still being prepared (or was interrupted); try again later, or sign a new request",
      );
    }
    await sleep(pause);
  }
}

interface ClaimAttempt {
  won: boolean;
  refusal: StoredRefusal | null;
}

/**
 * The claim's transaction answers before its commit is flushed to disk, sparing the request the wait for it. A claim
 * the database loses in a crash is no weaker than one whose holder died, which is taken over at once: every session
 * goes with the database, the holder's request fails, and no activity had been written under the claim.
 */
const UNFLUSHED_COMMIT = "SET LOCAL synchronous_commit = off";

const CLAIM = `WITH stale AS (DELETE FROM activity_claims WHERE claimed_at < $3 AND fingerprint <> $1),
            won AS (INSERT INTO activity_claims (fingerprint, claimed_at, holder) VALUES ($1, $2, current_setting('application_name'))
                    ON CONFLICT (fingerprint) DO UPDATE SET claimed_at = EXCLUDED.claimed_at, refusal = NULL, holder = EXCLUDED.holder
                    WHERE activity_claims.claimed_at < $3 OR (activity_claims.refusal IS NOT NULL AND $4::boolean)
                       OR (activity_claims.refusal IS NULL AND activity_claims.holder IS NOT NULL
                           AND NOT EXISTS (SELECT 1 FROM pg_stat_activity s WHERE s.application_name = activity_claims.holder))
                    RETURNING 1)
       SELECT EXISTS (SELECT 1 FROM won) AS won, (SELECT refusal FROM activity_claims WHERE fingerprint = $1) AS refusal`;
