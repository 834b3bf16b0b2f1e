export interface BackgroundLoop {
  /** Work arrived: a pass now (or right after the one running) rather than at the next poll. */
  wake(): void;
  /** Ends the loop once the pass running (if any) is over. */
  stop(): Promise<void>;
}

/**
 * What a pass found: more to do now (true); nothing now, but work that falls due later or that other processes may
 * commit (false); or no work at all, not even for later ("idle").
 */
export type PassOutcome = boolean | "idle";

export interface LoopPacing {
  /** How long the loop sleeps after a pass with nothing more to do, unless woken. */
  pollIntervalMs: number;
  /**
   * How long it sleeps, unless woken, after a pass that found no work at all (pollIntervalMs by default). Only where
   * every write that makes work for the loop also wakes it may this be long: on the embedded store, whose one
   * writer is this process.
   */
  idleIntervalMs?: number;
  /**
   * The least time between the starts of two passes when woken (0 by default): the work arriving in the meantime
   * goes in one pass instead of a pass each. After a quiet spell a wake still starts a pass at once.
   */
  gatherMs?: number;
}

/**
 * Runs `pass` over and over until stopped: again at once when it answers true (more to do) or, gathering aside, when
 * woken while it ran; otherwise after the poll interval (the idle interval when it answers "idle") or at the next
 * wake, whichever comes first. A pass that throws is handed to `onError` (unless the loop is stopping) and the loop
 * sleeps as after a pass with nothing more to do. The outbox workers (webhooks, the broadcaster, the block watcher,
 * the audit log's integrator) all run on one.
 */
export function startBackgroundLoop(
  pass: () => Promise<PassOutcome>,
  { pollIntervalMs, idleIntervalMs = pollIntervalMs, gatherMs = 0 }: LoopPacing,
  onError: (error: unknown) => void,
): BackgroundLoop {
  let running = true;
  let woken = false;
  let wakeUp: (() => void) | undefined;
  /** Sleeps `ms`; a wake ends the sleep early only if `wakeable` (a stop always does). */
  const sleep = (ms: number, wakeable: boolean) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wakeUp = () => {
        if (!wakeable && running) return;
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => (wakeUp = undefined));
  const loop = (async () => {
    while (running) {
      const startedAt = performance.now();
      woken = false;
      let outcome: PassOutcome = false;
      try {
        outcome = await pass();
      } catch (error) {
        if (running) onError(error);
      }
      if (outcome === true || !running) continue;
      if (!woken) await sleep(outcome === "idle" ? idleIntervalMs : pollIntervalMs, true);
      const gathering = startedAt + gatherMs - performance.now();
      if (woken && running && gathering > 0) await sleep(gathering, false);
    }
  })();
  return {
    wake() {
      woken = true;
      wakeUp?.();
    },
    async stop() {
      running = false;
      wakeUp?.();
      await loop;
    },
  };
}
