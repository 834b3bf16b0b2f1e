export interface BackgroundLoop {
  /** Work arrived: a pass now (or right after the one running) rather than at the next poll. */
  wake(): void;
  /** Ends the loop once the pass running (if any) is over. */
  stop(): Promise<void>;
}

export interface LoopPacing {
  /** How long the loop sleeps after a pass with nothing more to do, unless woken. */
  pollIntervalMs: number;
  /**
   * The least time between the starts of two passes when woken (0 by default): the work arriving in the meantime
   * goes in one pass instead of a pass each. After a quiet spell a wake still starts a pass at once.
   */
  gatherMs?: number;
}

/**
 * Runs `pass` over and over until stopped: again at once when it answers true (more to do) or, gathering aside, when
 * woken while it ran; otherwise after the poll interval or at the next wake, whichever comes first. A pass that
 * throws is handed to `onError` (unless the loop is stopping) and the loop sleeps as after a pass with nothing more
 * to do. The outbox workers (webhooks, the broadcaster, the block watcher, the audit log's integrator) all run on one.
 */
export function startBackgroundLoop(
  pass: () => Promise<boolean>,
  { pollIntervalMs, gatherMs = 0 }: LoopPacing,
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
      let more = false;
      try {
        more = await pass();
      } catch (error) {
        if (running) onError(error);
      }
      if (more || !running) continue;
      if (!woken) await sleep(pollIntervalMs, true);
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
