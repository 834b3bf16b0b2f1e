import type { AuditSettings } from "../config.js";
import type { AuditKeys } from "../crypto/audit-keys.js";
import type { Database } from "../store/database.js";
import { integrateOnce, type IntegrationSettings } from "./integrate.js";

export interface Integrator {
  /** Events were committed: a pass now rather than at the next poll. */
  wake(): void;
  /** Stops the loop after a last pass, which signs a checkpoint of everything integrated (when this process holds the lease). */
  stop(): Promise<void>;
}

/**
 * The audit log's integrator: every process runs one, and the one holding the lease (src/audit/integrate.ts)
 * integrates for the whole cluster; the others look again each poll and take over when the lease runs out or
 * its holder's session is gone. Between passes it sleeps until woken (this process committed events) or the
 * next poll (another process did, or a checkpoint falls due).
 */
/** How the integrator paces its passes. */
export interface IntegratorPacing {
  /** How often it looks for events committed by other processes. */
  pollIntervalMs: number;
  /**
   * The least time between the starts of two passes when woken: the events committed in the meantime go in one
   * pass (one transaction and one commit) instead of a pass per activity.
   */
  gatherMs: number;
}

/**
 * The integrator's settings from the audit settings: batches of 1,000, a lease of 10 s (or four polls, if longer),
 * and woken passes at most every 50 ms (or every poll, if shorter).
 */
export function integrationSettings(audit: AuditSettings): IntegrationSettings & IntegratorPacing {
  return {
    batch: 1000,
    checkpointIntervalMs: audit.checkpointIntervalMs,
    leaseMs: Math.max(10_000, 4 * audit.pollIntervalMs),
    pollIntervalMs: audit.pollIntervalMs,
    gatherMs: Math.min(50, audit.pollIntervalMs),
  };
}

export function startIntegrator(
  db: Database,
  keys: AuditKeys,
  settings: IntegrationSettings & IntegratorPacing,
  onError: (error: unknown) => void,
): Integrator {
  let running = true;
  let woken = false;
  let wakeUp: (() => void) | undefined;
  const pause = (ms: number, wakeable: boolean) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wakeUp = () => {
        if (wakeable || !running) {
          clearTimeout(timer);
          resolve();
        }
      };
    }).finally(() => (wakeUp = undefined));
  const loop = (async () => {
    while (running) {
      const startedAt = performance.now();
      let again = false;
      try {
        woken = false;
        again = (await integrateOnce(db, keys, settings)).more;
      } catch (error) {
        if (running) onError(error);
      }
      if (again || !running) continue;
      if (!woken) await pause(settings.pollIntervalMs, true);
      // Woken: wait out the rest of the gathering time, so the activities committing meanwhile share the next pass.
      const gathering = startedAt + settings.gatherMs - performance.now();
      if (woken && running && gathering > 0) await pause(gathering, false);
    }
  })();
  return {
    wake: () => {
      woken = true;
      wakeUp?.();
    },
    async stop() {
      running = false;
      wakeUp?.();
      await loop;
      await integrateOnce(db, keys, { ...settings, checkpointIntervalMs: 0 }).catch(onError);
    },
  };
}
