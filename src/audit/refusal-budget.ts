import type { JsonValue } from "./canonical-json.js";

/** Refusals of one requester naming one organization are budgeted per minute. */
export const REFUSAL_WINDOW_MS = 60_000;

/** What a refusal the budget counts instead of recording is summed up by. */
export interface RefusalOutcome {
  kind: string;
  operation: string;
  httpStatus: number;
}

/**
 * The refusals of one requester (a credential, or nobody authenticated) naming one organization that the budget
 * counted in one window instead of recording each: how many, when the first and last came, and how they split by
 * request kind, operation and HTTP status.
 */
export interface RefusalSummary {
  organizationId: string;
  /** The requester as the refusals' entries name it, or undefined when none was authenticated. */
  requester: JsonValue | undefined;
  count: number;
  first: Date;
  last: Date;
  outcomes: Array<RefusalOutcome & { count: number }>;
}

interface Window {
  organizationId: string;
  requester: JsonValue | undefined;
  startsAt: number;
  recorded: number;
  counted?: { first: number; last: number; outcomes: Map<string, RefusalOutcome & { count: number }> };
}

const windowKey = (organizationId: string, requesterKey: string | undefined) => `${organizationId}\u0000${requesterKey ?? ""}`;

/**
 * Bounds how fast refusals can grow an organization's audit log. Anyone who knows an organization's id can have
 * a request refused naming it, and recording every one would let them grow its log without limit. Per
 * organization and requester (a credential id, or one budget for everyone unauthenticated), the first
 * `perWindow` refusals of each minute are recorded in full; the rest are counted, and the count goes into the log
 * as one summary once the minute is over (src/audit/integrator.ts writes them). The budget lives in the
 * process's memory: a cluster of N processes records at most N × `perWindow` a minute, and a crash loses the
 * counts of the minute it happens in (the refusals recorded in full stay).
 *
 * It holds a window only for an organization that exists: a refusal naming none is not recorded, and
 * `forget` drops the window `admit` opened for it.
 */
export class RefusalBudget {
  private readonly open = new Map<string, Window>();
  private closed: RefusalSummary[] = [];

  constructor(readonly perWindow: number) {}

  /** Whether this refusal is recorded in full (true) or only counted in its window's summary (false). */
  admit(organizationId: string, requester: { key: string; entry: JsonValue } | undefined, outcome: RefusalOutcome, now: Date): boolean {
    const key = windowKey(organizationId, requester?.key);
    const at = now.getTime();
    let window = this.open.get(key);
    if (window && at >= window.startsAt + REFUSAL_WINDOW_MS) {
      this.close(window);
      window = undefined;
    }
    if (!window) {
      window = { organizationId, requester: requester?.entry, startsAt: at, recorded: 0 };
      this.open.set(key, window);
    }
    if (window.recorded < this.perWindow) {
      window.recorded++;
      return true;
    }
    window.counted ??= { first: at, last: at, outcomes: new Map() };
    window.counted.last = at;
    const outcomeKey = `${outcome.kind}\u0000${outcome.operation}\u0000${outcome.httpStatus}`;
    const counted = window.counted.outcomes.get(outcomeKey);
    if (counted) counted.count++;
    else window.counted.outcomes.set(outcomeKey, { ...outcome, count: 1 });
    return false;
  }

  /** The organization a refusal named does not exist: no window for it. */
  forget(organizationId: string, requesterKey: string | undefined): void {
    this.open.delete(windowKey(organizationId, requesterKey));
  }

  /**
   * The summaries of the windows over by `now` (of every window with `all`, as the process stops), each answered
   * once; a window that counted nothing has none.
   */
  takeSummaries(now: Date, all = false): RefusalSummary[] {
    for (const [key, window] of this.open) {
      if (all || now.getTime() >= window.startsAt + REFUSAL_WINDOW_MS) {
        this.close(window);
        this.open.delete(key);
      }
    }
    const summaries = this.closed;
    this.closed = [];
    return summaries;
  }

  /** Whether a summary is owed: a window counted refusals, or a summary taken was put back. */
  get owesSummaries(): boolean {
    return this.closed.length > 0 || [...this.open.values()].some((window) => window.counted !== undefined);
  }

  /** Summaries taken but not written (the store failed): answered again by the next `takeSummaries`. */
  putBack(summaries: RefusalSummary[]): void {
    this.closed.unshift(...summaries);
  }

  private close(window: Window): void {
    if (!window.counted) return;
    const outcomes = [...window.counted.outcomes.values()];
    this.closed.push({
      organizationId: window.organizationId,
      requester: window.requester,
      count: outcomes.reduce((sum, o) => sum + o.count, 0),
      first: new Date(window.counted.first),
      last: new Date(window.counted.last),
      outcomes,
    });
  }
}
