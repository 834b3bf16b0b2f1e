import type { ServerUrls } from "../startup-log.js";

/**
 * What a worker of `serve --workers` tells the primary over the cluster's IPC channel (prom-client's metrics
 * requests and answers share the channel, under their own `type`). The primary asks a worker to stop with SIGTERM.
 */
export type FromWorker =
  | { strongroom: "ready"; urls: ServerUrls; signerPublicKeyHex: string }
  /** The worker could not start (a port is taken, the database refused it): the message a person reads. */
  | { strongroom: "failed"; message: string }
  /** The worker is stopping and has closed its listeners; it waits for `listeners-closed` (src/server/drain.ts). */
  | { strongroom: "stopped-listening" };

/** What the primary tells a worker: every worker stopping has closed its listeners (or this one stops alone). */
export type ToWorker = { strongroom: "listeners-closed" };

export function isToWorker(message: unknown): message is ToWorker {
  return typeof message === "object" && message !== null && (message as { strongroom?: unknown }).strongroom === "listeners-closed";
}

/** The environment variable that gives a worker its slot, 1 to N, which its replacements keep. */
export const WORKER_SLOT_VARIABLE = "STRONGROOM_WORKER_SLOT";

export function isFromWorker(message: unknown): message is FromWorker {
  const kind = typeof message === "object" && message !== null ? (message as { strongroom?: unknown }).strongroom : undefined;
  return kind === "ready" || kind === "failed" || kind === "stopped-listening";
}
