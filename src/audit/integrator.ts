import { startBackgroundLoop, type LoopPacing, type PassOutcome } from "../background-loop.js";
import type { AuditSettings } from "../config.js";
import type { AuditKeys } from "../crypto/audit-keys.js";
import type { Database } from "../store/database.js";
import { integrateOnce, type IntegrationSettings } from "./integrate.js";
import { recordRefusalSummaries } from "./record-refusal-summaries.js";
import type { RefusalBudget } from "./refusal-budget.js";

export interface Integrator {
  /** Events were committed: a pass now rather than at the next poll. */
  wake(): void;
  /** Stops the loop after a last pass, which signs a checkpoint of everything integrated (when this process holds the lease). */
  stop(): Promise<void>;
}

/**
 * The integrator's settings from the audit settings: batches of 1,000, a lease of 10 s (or four polls, if longer),
 * and woken passes at most every 500 ms (or every poll, if shorter). A pass is about ten statements and a commit;
 * at 50 ms apart, one rename at a time on PGlite paid 60 % more CPU with the log on than off, at 500 ms 4 %
 * (bench/README.md). Entries then reach the log up to half a second after their activity under steady load (a
 * wake after a quiet spell still starts a pass at once); checkpoints are signed far less often anyway.
 */
export function integrationSettings(audit: AuditSettings): IntegrationSettings & LoopPacing {
  return {
    batch: 1000,
    checkpointIntervalMs: audit.checkpointIntervalMs,
    leaseMs: Math.max(10_000, 4 * audit.pollIntervalMs),
    pollIntervalMs: audit.pollIntervalMs,
    gatherMs: Math.min(500, audit.pollIntervalMs),
  };
}

/**
 * The audit log's integrator: every process runs one, and the one holding the lease (src/audit/integrate.ts)
 * integrates for the whole cluster; the others look again each poll and take over when the lease runs out or
 * its holder's session is gone. Between passes it sleeps until woken (this process committed events) or the
 * next poll (another process did, or a checkpoint falls due); the idle interval, if one is set, when it holds the
 * lease and nothing is pending or owed. Each pass first writes the summaries of this process's refusal budget whose
 * minute is over; the last, as it stops, writes them all.
 */
export function startIntegrator(
  db: Database,
  keys: AuditKeys,
  /** LoopPacing: woken passes gather the events committed meanwhile (one commit for them all). */
  settings: IntegrationSettings & LoopPacing,
  refusals: { budget: RefusalBudget; clock: () => Date },
  onError: (error: unknown) => void,
): Integrator {
  const pass = async (): Promise<PassOutcome> => {
    await recordRefusalSummaries(db, refusals.budget, refusals.clock());
    const integrated = await integrateOnce(db, keys, settings);
    if (integrated.more) return true;
    // Another process's lease may lapse, a checkpoint and a refusal summary fall due with time: none of that is idle.
    return integrated.holder && !integrated.checkpointOwed && !refusals.budget.owesSummaries ? "idle" : false;
  };
  const loop = startBackgroundLoop(pass, settings, onError);
  return {
    wake: loop.wake,
    async stop() {
      await loop.stop();
      await recordRefusalSummaries(db, refusals.budget, refusals.clock(), true).catch(onError);
      await integrateOnce(db, keys, { ...settings, checkpointIntervalMs: 0 }).catch(onError);
    },
  };
}
