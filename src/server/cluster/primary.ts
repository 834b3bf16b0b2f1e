import cluster, { type Worker } from "node:cluster";
import pino, { type Logger } from "pino";
import { AggregatorRegistry } from "prom-client";
import type { Config } from "../../config.js";
import { logDestination, type LogDestination } from "../../http/log-destination.js";
import { openStoreReporting, type StoreReport } from "../../store/open.js";
import { DEFAULT_DRAIN_MS } from "../drain.js";
import { hasAnyOrganization, NO_ORGANIZATION_YET } from "../first-start.js";
import { serveMetrics, type MetricsServer } from "../serve-metrics.js";
import { logShutdown, logStartup, type ServerUrls } from "../startup-log.js";
import { isFromWorker, WORKER_SLOT_VARIABLE, type FromWorker, type ToWorker } from "./messages.js";
import { connectionsPerWorker } from "./worker-count.js";

/** A worker that died is replaced after this long, doubled for each death in a row, up to RESTART_MAX_MS. */
const RESTART_FIRST_MS = 500;
const RESTART_MAX_MS = 30_000;
/** A worker that served at least this long before it died counts as the first death of a new row. */
const STABLE_MS = 30_000;
/** The least time the primary gives its own last log lines, even when the workers used up the drain time. */
const LAST_LINES_MS = 250;

export interface PrimaryOptions {
  config: Config;
  workers: number;
  logs: LogDestination;
  /** How long the log's last lines may take to be written out before a process exits anyway. */
  logFinishMs: number;
}

/** One of the N places a worker fills; a replacement takes the place of one that died. */
interface Slot {
  number: number;
  worker?: Worker;
  startedAt: number;
  ready: boolean;
  /** While stopping: the worker has closed its listeners. */
  stoppedListening?: boolean;
  deathsInARow: number;
  restart?: NodeJS.Timeout;
}

const describeExit = (code: number | null, signal: string | null) => (signal ? `was killed by ${signal}` : `exited with code ${code}`);

/** Opens the store once — waiting for PostgreSQL, applying migrations under their lock — so that workers find it ready. */
async function prepareStore(config: Config, log: Logger): Promise<{ store: StoreReport; hasOrganization: boolean }> {
  const { db, report } = await openStoreReporting({
    databaseUrl: config.databaseUrl,
    databaseSchema: config.databaseSchema,
    databaseWaitMs: config.databaseWaitMs,
    onWait: (message) => log.warn(message),
    dataDir: config.dataDir,
    pgliteSharedBuffers: config.pgliteSharedBuffers,
  });
  try {
    return { store: report, hasOrganization: await hasAnyOrganization(db) };
  } finally {
    await db.close();
  }
}

/**
 * `serve --workers N` (N > 1, PostgreSQL): the primary process. It prepares the store (migrations, once), then
 * forks N workers (src/server/cluster/worker.ts), each a whole server; node:cluster shares the API and auth proxy
 * ports among them (the primary accepts connections and hands them round-robin to the workers). The primary
 * serves the metrics port itself, summing the workers' registries. It writes the start-up line once every worker
 * listens, replaces a worker that dies (after a pause that doubles while they keep dying), and on SIGTERM or
 * SIGINT has every worker drain and waits for them; a second signal kills them and exits at once.
 */
export async function runPrimary({ config, workers, logs, logFinishMs }: PrimaryOptions): Promise<void> {
  const log = pino({ level: config.logLevel }, logDestination(logs.stream, config.logFormat)).child({ worker: 0 });
  const startedAt = Date.now();
  const poolSize = config.databasePoolSize ?? connectionsPerWorker(workers);
  const { store, hasOrganization } = await prepareStore(config, log);
  const aggregator = new AggregatorRegistry();
  const metricsServer: MetricsServer | undefined =
    config.metricsPort === undefined
      ? undefined
      : await serveMetrics(
          { metrics: () => aggregator.clusterMetrics(), contentType: aggregator.contentType },
          config.host,
          config.metricsPort,
        );

  const slots: Slot[] = Array.from({ length: workers }, (_, i) => ({ number: i + 1, startedAt: 0, ready: false, deathsInARow: 0 }));
  let phase: "starting" | "serving" | "stopping" = "starting";
  let started: { resolve: (ready: Extract<FromWorker, { strongroom: "ready" }>) => void; reject: (error: Error) => void };
  const allReady = new Promise<Extract<FromWorker, { strongroom: "ready" }>>((resolve, reject) => (started = { resolve, reject }));
  let stopped: () => void;
  const allStopped = new Promise<void>((resolve) => (stopped = resolve));
  let cleanStop = true;

  /**
   * While stopping: once every worker still running has closed its listeners, tells them all, and their drains go on
   * (src/server/drain.ts: until then their answers keep connections open, so no client reconnects into the moment the
   * last listener closes, when node:cluster resets the connections it accepted but had not handed on).
   */
  let listenersReleased = false;
  const releaseWhenAllStoppedListening = () => {
    const running = slots.filter((s) => s.worker);
    if (listenersReleased || !running.every((s) => s.stoppedListening)) return;
    listenersReleased = true;
    for (const slot of running) slot.worker!.send({ strongroom: "listeners-closed" } satisfies ToWorker);
  };

  const fork = (slot: Slot) => {
    const worker = cluster.fork({ [WORKER_SLOT_VARIABLE]: String(slot.number), DATABASE_POOL_SIZE: String(poolSize) });
    Object.assign(slot, { worker, startedAt: Date.now(), ready: false, stoppedListening: false, restart: undefined });
    // A message to a worker that just died fails; its exit is handled below.
    worker.on("error", (error) =>
      log.warn({ slot: slot.number, workerPid: worker.process.pid, err: error }, `worker ${slot.number}: ${error.message}`),
    );
    worker.on("message", (message: unknown) => {
      if (!isFromWorker(message)) return;
      if (message.strongroom === "stopped-listening") {
        slot.stoppedListening = true;
        // A worker stopped alone: the others still listen, nothing to wait for.
        if (phase !== "stopping") worker.send({ strongroom: "listeners-closed" } satisfies ToWorker);
        else releaseWhenAllStoppedListening();
        return;
      }
      if (message.strongroom === "failed") {
        if (phase === "starting") started.reject(new Error(message.message));
        else log.error({ slot: slot.number, workerPid: worker.process.pid }, `worker ${slot.number} could not start: ${message.message}`);
        return;
      }
      slot.ready = true;
      if (phase === "starting" && slots.every((s) => s.ready)) started.resolve(message);
      else if (phase === "serving")
        log.info({ slot: slot.number, workerPid: worker.process.pid }, `worker ${slot.number} replaced: pid ${worker.process.pid} serves`);
    });
    worker.on("exit", (code, signal) => {
      if (slot.worker === worker) slot.worker = undefined;
      if (phase === "starting") {
        started.reject(new Error(`worker ${slot.number} ${describeExit(code, signal)} before it served`));
      } else if (phase === "serving") {
        slot.deathsInARow = Date.now() - slot.startedAt >= STABLE_MS ? 1 : slot.deathsInARow + 1;
        const delayMs = Math.min(RESTART_MAX_MS, RESTART_FIRST_MS * 2 ** (slot.deathsInARow - 1));
        log[code === 0 && !signal ? "warn" : "error"](
          { slot: slot.number, workerPid: worker.process.pid, exitCode: code, signal, restartInMs: delayMs },
          `worker ${slot.number} (pid ${worker.process.pid}) ${describeExit(code, signal)}; starting another in ${delayMs / 1000} s`,
        );
        slot.restart = setTimeout(() => fork(slot), delayMs);
      } else {
        releaseWhenAllStoppedListening();
        // A replacement still starting when the stop came dies of the SIGTERM before it can drain: nothing was lost.
        if (code !== 0 && !(signal === "SIGTERM" && !slot.ready)) cleanStop = false;
        if (slots.every((s) => !s.worker)) stopped();
      }
    });
  };

  for (const slot of slots) fork(slot);
  let first: Extract<FromWorker, { strongroom: "ready" }>;
  try {
    first = await allReady;
  } catch (error) {
    phase = "stopping";
    for (const slot of slots) slot.worker?.process.kill("SIGKILL");
    await metricsServer?.close();
    throw error;
  }
  phase = "serving";
  const urls: ServerUrls = { ...first.urls, ...(metricsServer ? { metricsUrl: metricsServer.url } : {}) };
  logStartup(log, { store, signerPublicKeyHex: first.signerPublicKeyHex }, urls, {
    workers,
    workerPids: slots.map((s) => s.worker!.process.pid!),
    connectionsPerWorker: poolSize,
  });
  if (!hasOrganization) log.warn(NO_ORGANIZATION_YET);

  const stop = (signal: NodeJS.Signals) => {
    if (phase === "stopping") {
      for (const slot of slots) slot.worker?.process.kill("SIGKILL");
      logs.abandon();
      process.exit(1);
    }
    phase = "stopping";
    const budgetEnds = Date.now() + DEFAULT_DRAIN_MS + logFinishMs;
    log.info(`${signal}: finishing requests in flight in every worker, then stopping`);
    for (const slot of slots) clearTimeout(slot.restart);
    // Every worker closes its listeners, answers what it read and exits within the drain time and its log's.
    for (const slot of slots) slot.worker?.process.kill("SIGTERM");
    if (slots.every((s) => !s.worker)) stopped();
    const overdue = setTimeout(() => {
      for (const slot of slots) {
        if (!slot.worker) continue;
        log.warn({ slot: slot.number, workerPid: slot.worker.process.pid }, `worker ${slot.number} is still running: killing it`);
        slot.worker.process.kill("SIGKILL");
      }
    }, budgetEnds - Date.now());
    void allStopped.then(async () => {
      clearTimeout(overdue);
      await metricsServer?.close();
      logShutdown(log, store.kind, Date.now() - startedAt);
      await logs.finish(Math.max(LAST_LINES_MS, Math.min(logFinishMs, budgetEnds - Date.now())));
      process.exit(cleanStop ? 0 : 1);
    });
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
