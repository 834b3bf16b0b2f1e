import type { FastifyBaseLogger } from "fastify";
import { resealBatch, retireOlderVersions } from "../crypto/keyring/reseal.js";
import type { Services } from "../services.js";

export interface CustodyWorker {
  /** Runs a round now (after a rotation through the control socket). */
  wake(): void;
  stop(): Promise<void>;
}

/**
 * Every STRONGROOM_KEYRING_POLL_MS, while unsealed: reads the keyring and the seal requests again (custody.refresh:
 * a seal request seals this process), then moves a batch of values to the sealing version, and once none is left
 * under an older version retires those versions and purges what they opened. Every process of a cluster runs it.
 * Once nothing is left to move it waits `idleMs` between rounds (the poll by default): long only where every change
 * it reads wakes it (the embedded store, whose one writer is this process: a rotation, a seal request).
 */
export function startCustodyWorker(services: Services, pollMs: number, log: FastifyBaseLogger, idleMs = pollMs): CustodyWorker {
  const { custody, db } = services;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  /** Whether values may be left to move: at start (a store from before the keyring), and after each version read. */
  let pending = true;
  let knownVersions = "";

  const round = async () => {
    if (custody.sealed || !(await custody.refresh())) return;
    const versions = custody.keyring.versions().join(",");
    if (versions !== knownVersions) {
      knownVersions = versions;
      pending = true;
    }
    if (!pending) return;
    const moved = await resealBatch(db, custody.keyring);
    if (moved > 0) {
      log.info({ moved, keyVersion: custody.keyring.sealingVersion }, "keyring: values re-sealed under the newest key version");
      return;
    }
    const { retired, purged } = await retireOlderVersions(db, custody.keyring);
    if (retired.length > 0) {
      log.info({ retired, purged }, "keyring: older key versions retired and their old row versions purged");
      for (const warning of purged?.warnings ?? []) log.warn(`keyring purge: ${warning}`);
      await custody.refresh();
    }
    pending = custody.keyring.versions().length > 1;
  };
  const schedule = (delay: number) => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      running = running
        .then(round)
        .catch((error: unknown) =>
          // While the database is unavailable each round fails: one line saying so, not a stack each time.
          error instanceof Error && error.name === "DatabaseUnavailable"
            ? log.warn(`keyring worker: ${error.message}`)
            : log.warn({ err: error }, "keyring worker"),
        )
        .finally(() => schedule(pending ? pollMs : idleMs));
    }, delay);
  };
  schedule(pollMs);
  return {
    wake: () => {
      pending = true;
      schedule(0);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
