import { startBackgroundLoop, type LoopPacing } from "../background-loop.js";
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

/** How the integrator paces its passes: woken passes gather the events committed meanwhile (one commit for them all). */
export type IntegratorPacing = Required<LoopPacing>;

/**
 * The integrator's settings from the audit settings: batches of 1,000, a lease of 10 s (or four polls, if longer),
 * and woken passes at most every 250 ms (or every poll, if shorter). A pass costs about ten statements and a commit
 * whatever it carries, so at one connection a 50 ms gathering still ran a pass per ~8 activities (≈ 15 % of a
 * rename's CPU on PGlite); the events are durable from their activity's commit, only their place in the log waits,
 * and no longer than the poll (500 ms by default) already makes it wait for another process's events.
 */
export function integrationSettings(audit: AuditSettings): IntegrationSettings & IntegratorPacing {
  return {
    batch: 1000,
    checkpointIntervalMs: audit.checkpointIntervalMs,
    leaseMs: Math.max(10_000, 4 * audit.pollIntervalMs),
    pollIntervalMs: audit.pollIntervalMs,
    gatherMs: Math.min(250, audit.pollIntervalMs),
  };
}

/**
 * The audit log's integrator: every process runs one, and the one holding the lease (src/audit/integrate.ts)
 * integrates for the whole cluster; the others look again each poll and take over when the lease runs out or
 * its holder's session is gone. Between passes it sleeps until woken (this process committed events) or the
 * next poll (another process did, or a checkpoint falls due).
 */
export function startIntegrator(
  db: Database,
  keys: AuditKeys,
  settings: IntegrationSettings & IntegratorPacing,
  onError: (error: unknown) => void,
): Integrator {
  const loop = startBackgroundLoop(async () => (await integrateOnce(db, keys, settings)).more, settings, onError);
  return {
    wake: loop.wake,
    async stop() {
      await loop.stop();
      await integrateOnce(db, keys, { ...settings, checkpointIntervalMs: 0 }).catch(onError);
    },
  };
}
