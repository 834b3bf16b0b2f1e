export interface BackgroundLoop {
  /** Work arrived: a pass now (or right after the one running) rather than at the next poll. */
  wake(): void;
  /** Ends the loop once the pass running (if any) is over. */
  stop(): Promise<void>;
}

/**
 * Runs `pass` over and over until stopped: again at once when it answers true (more to do) or when woken while it
 * ran, otherwise after `pollIntervalMs` or at the next wake, whichever comes first. A pass that throws is handed to
 * `onError` (unless the loop is stopping) and the loop sleeps as after a pass with nothing more to do.
 * The outbox workers (webhooks, the broadcaster, the block watcher, the audit log's integrator) all run on one.
 */
export function startBackgroundLoop(
  pass: () => Promise<boolean>,
  pollIntervalMs: number,
  onError: (error: unknown) => void,
): BackgroundLoop {
  let running = true;
  let woken = false;
  let wakeUp: (() => void) | undefined;
  const loop = (async () => {
    while (running) {
      woken = false;
      let more = false;
      try {
        more = await pass();
      } catch (error) {
        if (running) onError(error);
      }
      if (more || woken || !running) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollIntervalMs);
        wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wakeUp = undefined;
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
