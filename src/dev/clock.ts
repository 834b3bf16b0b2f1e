/**
 * The dev server's clock: the system time plus an offset that only ever grows. Every expiry decision
 * (sessions, API keys, one-time codes, approvals, verification tokens) reads `services.clock`, so moving
 * this clock expires them as the passing of that much time would.
 */
export interface DevClock {
  /** The server's current time. */
  now(): Date;
  /** Moves the clock forward by `seconds` (then calls the `moved` given to devClock) and answers the new time. */
  advance(seconds: number): Date;
  /** How far ahead of the system time the clock runs, in seconds. */
  offsetSeconds(): number;
  /** Back to the system time. */
  reset(): void;
}

/** `moved`: called after each advance (the dev server wakes its background loops: what falls due with time is looked at). */
export function devClock(moved: () => void = () => undefined): DevClock {
  let offsetMs = 0;
  const now = () => new Date(Date.now() + offsetMs);
  return {
    now,
    advance(seconds) {
      if (!Number.isFinite(seconds) || seconds < 0) throw new RangeError("the clock moves forward only: give a number of seconds ≥ 0");
      offsetMs += Math.round(seconds * 1000);
      moved();
      return now();
    },
    offsetSeconds: () => offsetMs / 1000,
    reset() {
      offsetMs = 0;
    },
  };
}
