import { freshPostgresDatabase } from "../helpers/postgres-database.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { failedPrecondition, invalidArgument } from "../../src/errors.js";
import { randomUUID } from "node:crypto";
import { claimFingerprint } from "../../src/pipeline/steps/claim.js";
import { SameBodyAgain } from "../../src/pipeline/steps/fingerprint.js";
import type { Database } from "../../src/store/database.js";
import { openStore } from "../../src/store/open.js";

/** Fingerprint claims (migration 0014): one holder at a time; what a holder's preparation came to answers its twins. */
describe("fingerprint claims", () => {
  let db: Database;
  const now = () => new Date();
  let dropDatabase: () => Promise<void> = async () => undefined;
  beforeAll(async () => {
    const base = process.env.DATABASE_URL;
    if (!base) {
      db = await openStore({ dataDir: "memory://" });
      return;
    }
    const database = await freshPostgresDatabase(base, "strongroom_claims");
    db = await openStore({ dataDir: "memory://", databaseUrl: database.url });
    dropDatabase = database.drop;
  });
  afterAll(async () => {
    await db.close();
    await dropDatabase();
  });

  it("a twin waits while the claim is held, and gets it once released", async () => {
    const claim = await claimFingerprint(db, "sha256:a", now);
    let asked = 0;
    const twin = claimFingerprint(db, "sha256:a", now, { whileHeld: async () => void asked++ });
    // The twin is waiting: it has looked for the holder's outcome at least once, and has not got the claim.
    await vi.waitFor(() => expect(asked).toBeGreaterThan(0), 10_000);
    await claim.release();
    expect((await twin).fingerprint).toBe("sha256:a");
  });

  it("a twin may stop waiting when it sees what the holder did", async () => {
    await claimFingerprint(db, "sha256:b", now);
    const done = failedPrecondition("the holder's activity exists");
    await expect(claimFingerprint(db, "sha256:b", now, { whileHeld: async () => Promise.reject(done) })).rejects.toBe(done);
  });

  it("an error after the preparation ran answers the same body again; one before it does not", async () => {
    const refused = await claimFingerprint(db, "sha256:c", now);
    await refused.settle(invalidArgument("authCode: refused", "REQUEST_INVALID", [{ field: "authCode", description: "refused" }]), true);
    const again = await claimFingerprint(db, "sha256:c", now).catch((error: unknown) => error);
    expect(again).toMatchObject({ code: 3, message: "authCode: refused", httpStatus: 400, turnkeyErrorCode: "REQUEST_INVALID" });

    // A vote is on an activity that exists: an earlier refusal of its body answers nothing any more.
    expect((await claimFingerprint(db, "sha256:c", now, { forVote: true })).fingerprint).toBe("sha256:c");

    const released = await claimFingerprint(db, "sha256:d", now);
    await released.settle(invalidArgument("denied before preparing"), false);
    expect((await claimFingerprint(db, "sha256:d", now)).fingerprint).toBe("sha256:d");
  });

  it("a claim whose holder has no database session left (its process died) is taken at once", async () => {
    await claimFingerprint(db, "sha256:f", now);
    await db.query("UPDATE activity_claims SET holder = 'strongroom gone' WHERE fingerprint = 'sha256:f'");
    expect((await claimFingerprint(db, "sha256:f", now)).fingerprint).toBe("sha256:f");
    // A claim written before holders were recorded (migration 0031) keeps the old rule: waited for, not taken.
    await claimFingerprint(db, "sha256:g", now);
    await db.query("UPDATE activity_claims SET holder = NULL WHERE fingerprint = 'sha256:g'");
    let asked = 0;
    await expect(
      claimFingerprint(db, "sha256:g", now, {
        whileHeld: async () => {
          if (++asked === 3) throw invalidArgument("stopped waiting");
        },
      }),
    ).rejects.toThrow("stopped waiting");
  });

  it("with sameBody, the body's activity answers each attempt: a claim won is released, a wait ends", async () => {
    const activityWith = async (fingerprint: string) => {
      const id = randomUUID();
      await db.query(
        `INSERT INTO activities (id, organization_id, type, status, fingerprint, intent, result, created_at, updated_at)
         VALUES ($1, $2, 'ACTIVITY_TYPE_CREATE_WALLET', 'ACTIVITY_STATUS_COMPLETED', $3, '{}', '{}', now(), now())`,
        [id, randomUUID(), fingerprint],
      );
      return id;
    };
    const claims = async (fingerprint: string) =>
      (await db.query("SELECT 1 FROM activity_claims WHERE fingerprint = $1", [fingerprint])).length;

    const done = await activityWith("sha256:h");
    const found = await claimFingerprint(db, "sha256:h", now, { sameBody: true }).catch((error: unknown) => error);
    expect(found).toBeInstanceOf(SameBodyAgain);
    expect((found as SameBodyAgain).activity.id).toBe(done);
    expect(await claims("sha256:h")).toBe(0);

    // A twin holds the claim, then its activity is written (its insert deletes its claim): the waiting request gets the activity.
    await claimFingerprint(db, "sha256:i", now);
    let asked = 0;
    const waiting = claimFingerprint(db, "sha256:i", now, { whileHeld: async () => void asked++, sameBody: true }).catch(
      (error: unknown) => error,
    );
    await vi.waitFor(() => expect(asked).toBeGreaterThan(0), 10_000);
    const twins = await activityWith("sha256:i");
    expect(((await waiting) as SameBodyAgain).activity.id).toBe(twins);
  });

  it("a claim older than any live body is dropped", async () => {
    await claimFingerprint(db, "sha256:e", () => new Date(Date.now() - 2 * 60 * 60 * 1000));
    expect((await claimFingerprint(db, "sha256:e", now)).fingerprint).toBe("sha256:e");
  });
});
