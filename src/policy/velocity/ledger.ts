/**
 * The velocity ledger of one activity in one transaction: the organization's controls, what this activity adds
 * to each, the readings a decision evaluates (`read`) and the recording of an executed activity (`record`).
 *
 * Races: a decision in the activity's transaction reads with `lock`, which first locks the bucket rows of every
 * control it reads and of every control this activity would add to (one statement, in a fixed order, so two
 * activities never wait on each other in a cycle), then sums the window. A second activity on the same bucket
 * waits at that lock until the first commits or rolls back, and then reads its recorded amount (READ COMMITTED:
 * each statement sees what committed before it), so two activities cannot both pass a cap that only one fits —
 * whichever process runs them. Amounts are recorded only by `record`, after the handler completed, in the same
 * transaction: an activity waiting for consensus, rejected, or failed adds nothing.
 */
import type { AssetTransfer } from "../../operations/activity-definition.js";
import { loadVelocityControls } from "../../records/velocity-control.js";
import type { Queryable } from "../../store/database.js";
import { compare, compileControl, contribution, type CompiledControl } from "./control.js";

/** Who and what an activity is, for the controls: the organization whose controls decide, its requester, the wallet it acts on. */
export interface VelocitySubject {
  organizationId: string;
  userId: string;
  /** The wallet (or, for a private key, the key) it acts on; none when it acts on neither. */
  walletId?: string;
  activityType: string;
  transfers: readonly AssetTransfer[];
}

/** One control as this activity sees it: the aggregate so far, what the activity adds, and whether the comparison holds with it. */
export interface ControlReading {
  controlId: string;
  identifier: string;
  /** Scaled units (10^-18). */
  current: bigint;
  adds: bigint;
  threshold: bigint;
  operator: CompiledControl["operator"];
  holds: boolean;
  /** The bucket; none for a wallet-grouped control and an activity on no wallet (which has a bucket of its own, empty). */
  bucket?: string;
}

const NO_GROUP = "";

export class VelocityLedger {
  private readonly locked = new Set<string>();
  private readonly totals = new Map<string, bigint>();

  private constructor(
    private readonly subject: VelocitySubject,
    readonly controls: readonly CompiledControl[],
    private readonly now: Date,
  ) {}

  /**
   * The organization's controls for this activity: one query, and `describe` (the activity's wallet and
   * transfers) only when the organization has a control. None without a query when `hasControls` is false: the
   * request's authentication found none a moment before (src/auth/api-key-stamp.ts). A control created since is
   * then not this activity's, as if created just after it; a policy naming it meanwhile names a control this
   * ledger does not have, which fails closed (src/policy/decision.ts).
   */
  static async open(
    db: Queryable,
    organizationId: string,
    describe: () => Promise<VelocitySubject>,
    now: Date,
    hasControls?: boolean,
  ): Promise<VelocityLedger> {
    const rows = hasControls === false ? [] : await loadVelocityControls(db, organizationId);
    if (rows.length === 0) return new VelocityLedger({ organizationId, userId: "", activityType: "", transfers: [] }, [], now);
    const subject = await describe();
    const controls = rows.flatMap((row) => {
      const compiled = compileControl({
        id: row.id,
        identifier: row.identifier,
        dataSource: row.data_source,
        aggregation: row.aggregation,
      });
      return "why" in compiled ? [] : [compiled];
    });
    return new VelocityLedger(subject, controls, now);
  }

  has(identifier: string): boolean {
    return this.controls.some((c) => c.identifier === identifier);
  }

  private bucketOf(control: CompiledControl): string | undefined {
    if (control.groupBy === "organization") return NO_GROUP;
    if (control.groupBy === "user") return this.subject.userId;
    return this.subject.walletId;
  }

  private adds(control: CompiledControl): bigint | undefined {
    return contribution(control, this.subject.activityType, this.subject.transfers);
  }

  /** The controls this activity is a data point of, with their buckets and amounts: what `record` writes. */
  private charges(): Array<{ control: CompiledControl; bucket: string; amount: bigint }> {
    return this.controls.flatMap((control) => {
      const amount = this.adds(control);
      const bucket = this.bucketOf(control);
      return amount === undefined || bucket === undefined ? [] : [{ control, bucket, amount }];
    });
  }

  /** Locks (creating where missing) the bucket rows, sorted, in one statement; remembers infinite windows' totals. */
  private async lockBuckets(tx: Queryable, buckets: Array<{ control: CompiledControl; bucket: string }>): Promise<void> {
    const key = (b: { control: CompiledControl; bucket: string }) => `${b.control.id}\u0000${b.bucket}`;
    const wanted = [...new Map(buckets.filter((b) => !this.locked.has(key(b))).map((b) => [key(b), b])).values()].sort((a, b) =>
      key(a) < key(b) ? -1 : 1,
    );
    if (wanted.length === 0) return;
    const rows = await tx
      .query<{ control_id: string; bucket: string; total: string }>(
        `INSERT INTO velocity_control_buckets (control_id, bucket)
       SELECT control_id, bucket FROM unnest($1::text[], $2::text[]) AS b(control_id, bucket) ORDER BY control_id, bucket
       ON CONFLICT (control_id, bucket) DO UPDATE SET total = velocity_control_buckets.total
       RETURNING control_id, bucket, total::text AS total`,
        [wanted.map((b) => b.control.id), wanted.map((b) => b.bucket)],
      )
      .catch(decideAgainIfControlDeleted);
    for (const row of rows) {
      this.locked.add(`${row.control_id}\u0000${row.bucket}`);
      this.totals.set(`${row.control_id}\u0000${row.bucket}`, BigInt(row.total));
    }
  }

  /** The aggregate so far of each (control, bucket): infinite windows from the bucket's total, rolling ones summed over their window. */
  private async aggregates(db: Queryable, buckets: Array<{ control: CompiledControl; bucket: string }>): Promise<Map<string, bigint>> {
    const sums = new Map<string, bigint>();
    const rolling = buckets.filter((b) => b.control.windowSeconds !== undefined);
    const infinite = buckets.filter((b) => b.control.windowSeconds === undefined);
    const unknownTotals = infinite.filter((b) => !this.totals.has(`${b.control.id}\u0000${b.bucket}`));
    if (unknownTotals.length > 0) {
      const rows = await db.query<{ control_id: string; bucket: string; total: string }>(
        `SELECT control_id, bucket, total::text AS total FROM velocity_control_buckets
          WHERE (control_id, bucket) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
        [unknownTotals.map((b) => b.control.id), unknownTotals.map((b) => b.bucket)],
      );
      for (const row of rows) this.totals.set(`${row.control_id}\u0000${row.bucket}`, BigInt(row.total));
    }
    for (const b of infinite) sums.set(`${b.control.id}\u0000${b.bucket}`, this.totals.get(`${b.control.id}\u0000${b.bucket}`) ?? 0n);
    if (rolling.length > 0) {
      const rows = await db.query<{ control_id: string; bucket: string; sum: string }>(
        `SELECT w.control_id, w.bucket, COALESCE(SUM(e.amount), 0)::text AS sum
           FROM unnest($1::text[], $2::text[], $3::timestamptz[]) AS w(control_id, bucket, since)
           LEFT JOIN velocity_control_events e ON e.control_id = w.control_id AND e.bucket = w.bucket AND e.occurred_at > w.since
          GROUP BY w.control_id, w.bucket`,
        [rolling.map((b) => b.control.id), rolling.map((b) => b.bucket), rolling.map((b) => this.windowStart(b.control).toISOString())],
      );
      for (const row of rows) sums.set(`${row.control_id}\u0000${row.bucket}`, BigInt(row.sum));
    }
    return sums;
  }

  private windowStart(control: CompiledControl): Date {
    return new Date(this.now.getTime() - control.windowSeconds! * 1000);
  }

  /**
   * The readings of the named controls (all of them for "all"); a name the organization has no control for is
   * left out. With `lock` (in the activity's transaction), the buckets read and those this activity adds to are
   * locked until the transaction ends.
   */
  async read(db: Queryable, identifiers: ReadonlySet<string> | "all", lock: boolean): Promise<Map<string, ControlReading>> {
    const named = this.controls.filter((c) => identifiers === "all" || identifiers.has(c.identifier));
    const buckets = named.flatMap((control) => {
      const bucket = this.bucketOf(control);
      return bucket === undefined ? [] : [{ control, bucket }];
    });
    if (lock) await this.lockBuckets(db, [...buckets, ...this.charges()]);
    const sums = await this.aggregates(db, buckets);
    const readings = new Map<string, ControlReading>();
    for (const control of named) {
      const bucket = this.bucketOf(control);
      const current = bucket === undefined ? 0n : (sums.get(`${control.id}\u0000${bucket}`) ?? 0n);
      const adds = this.adds(control) ?? 0n;
      readings.set(control.identifier, {
        controlId: control.id,
        identifier: control.identifier,
        current,
        adds,
        threshold: control.threshold,
        operator: control.operator,
        holds: compare(current + adds, control.operator, control.threshold),
        ...(bucket === undefined ? {} : { bucket }),
      });
    }
    return readings;
  }

  /**
   * Locks the buckets this activity would add to, before its handler runs (a no-op when the decision locked them
   * already): a handler's own row locks (an organization's, for its limits) then always come after the buckets',
   * in every transaction, so two activities never wait on each other in a cycle.
   */
  async lockCharges(tx: Queryable): Promise<void> {
    await this.lockBuckets(tx, this.charges());
  }

  /** Records the executed activity in every control it is a data point of (in the activity's transaction, after its handler completed). */
  async record(tx: Queryable, activityId: string): Promise<void> {
    let charges = this.charges().filter((c) => c.amount > 0n);
    if (charges.length === 0) return;
    // The activity itself may have deleted a control (delete_velocity_control is a data point of a control on every activity).
    const live = await tx.query<{ id: string }>("SELECT id FROM velocity_controls WHERE id = ANY($1::text[])", [
      charges.map((c) => c.control.id),
    ]);
    const ids = new Set(live.map((row) => row.id));
    charges = charges.filter((c) => ids.has(c.control.id));
    if (charges.length === 0) return;
    await this.lockBuckets(tx, charges);
    const infinite = charges.filter((c) => c.control.windowSeconds === undefined);
    const rolling = charges.filter((c) => c.control.windowSeconds !== undefined);
    if (infinite.length > 0)
      await tx.query(
        `UPDATE velocity_control_buckets b SET total = b.total + c.amount
           FROM unnest($1::text[], $2::text[], $3::numeric[]) AS c(control_id, bucket, amount)
          WHERE b.control_id = c.control_id AND b.bucket = c.bucket`,
        [infinite.map((c) => c.control.id), infinite.map((c) => c.bucket), infinite.map((c) => c.amount.toString())],
      );
    if (rolling.length > 0) {
      await tx.query(
        `DELETE FROM velocity_control_events e USING unnest($1::text[], $2::text[], $3::timestamptz[]) AS w(control_id, bucket, since)
          WHERE e.control_id = w.control_id AND e.bucket = w.bucket AND e.occurred_at <= w.since`,
        [rolling.map((c) => c.control.id), rolling.map((c) => c.bucket), rolling.map((c) => this.windowStart(c.control).toISOString())],
      );
      await tx.query(
        `INSERT INTO velocity_control_events (control_id, bucket, activity_id, amount, occurred_at)
         SELECT control_id, bucket, $4, amount, $5 FROM unnest($1::text[], $2::text[], $3::numeric[]) AS c(control_id, bucket, amount)`,
        [rolling.map((c) => c.control.id), rolling.map((c) => c.bucket), rolling.map((c) => c.amount.toString()), activityId, this.now],
      );
    }
  }
}

/**
 * A bucket's control deleted by a transaction that committed while this one decided on it (its foreign key then
 * fails): the transaction is retried as after a serialization failure, and decides again without the control.
 */
function decideAgainIfControlDeleted(error: unknown): never {
  if ((error as { code?: unknown }).code === "23503")
    throw Object.assign(new Error("a velocity control was deleted while the activity was decided on it"), { code: "40001" });
  throw error;
}
