import type { FastifyBaseLogger } from "fastify";
import type { Logger } from "pino";
import type { StoreReport } from "../store/open.js";
import { VERSION } from "../version.js";
import { browserAddress, consoleAddress } from "./browser-address.js";

/** Where a server listens, as its start-up line names it. */
export interface ServerUrls {
  url: string;
  authProxyUrl?: string;
  metricsUrl?: string;
}

/** The worker processes of `serve --workers N` (N > 1), for the start-up line the primary writes. */
export interface WorkerSummary {
  workers: number;
  workerPids: number[];
  /** The PostgreSQL connections each worker holds at most (DATABASE_POOL_SIZE, or connectionsPerWorker's default). */
  connectionsPerWorker: number;
}

/**
 * The start-up line: version, store (data directory, or PostgreSQL host/database and schema — never the URL's
 * credentials), schema version and the migrations this start applied, and where it listens (with several
 * workers, how many, their process ids and the connections each holds at most). Store warnings (tables still in
 * PostgreSQL's `public`) follow, one line each. Addresses for people are printed as `localhost`
 * (src/server/browser-address.ts), where the console's passkeys work.
 */
export function logStartup(
  log: FastifyBaseLogger | Logger,
  started: { store: StoreReport; signerPublicKeyHex: string | undefined },
  urls: ServerUrls,
  cluster?: WorkerSummary,
): void {
  const { store } = started;
  const where = store.kind === "pglite" ? `data directory ${store.location}` : `PostgreSQL ${store.location} schema ${store.schema}`;
  const applied = store.applied.map((m) => m.version);
  log.info(
    {
      version: VERSION,
      store: store.kind,
      ...(store.kind === "pglite" ? { dataDir: store.location } : { database: store.location, schema: store.schema }),
      schemaVersion: store.schemaVersion,
      migrationsApplied: applied, // migration numbers (src/store/migrations/NNNN-*.ts)
      api: urls.url,
      console: consoleAddress(urls.url),
      authProxy: urls.authProxyUrl,
      ...(urls.metricsUrl ? { metrics: urls.metricsUrl } : {}),
      ...cluster,
      ...(started.signerPublicKeyHex ? { signerPublicKey: started.signerPublicKeyHex } : { sealed: true }),
    },
    `Strongroom ${VERSION} started${cluster ? ` (${cluster.workers} workers)` : ""}: ${where}, schema version ${store.schemaVersion}` +
      `${applied.length ? ` (applied ${applied.length} migration${applied.length === 1 ? "" : "s"})` : ""}; ` +
      `API on ${browserAddress(urls.url)}, ${urls.authProxyUrl ? `auth proxy on ${browserAddress(urls.authProxyUrl)}` : "auth proxy off"}` +
      `${urls.metricsUrl ? `, metrics on ${urls.metricsUrl}` : ""}; console: ${consoleAddress(urls.url)}`,
  );
  for (const warning of store.warnings) log.warn(warning);
  if (!started.signerPublicKeyHex)
    log.warn(
      "sealed: the API answers 503 until a threshold of the key shares is given (POST /strongroom/v1/unseal); a store without " +
        "a keyring yet needs `strongroom init --key-shares N --key-threshold T` (STRONGROOM_SEAL=shamir)",
    );
}

/** The shutdown line, once every listener, worker and the store are closed. */
export function logShutdown(log: FastifyBaseLogger | Logger, storeKind: StoreReport["kind"], uptimeMs: number): void {
  log.info({ version: VERSION, store: storeKind, uptimeSeconds: Math.round(uptimeMs / 1000) }, `Strongroom ${VERSION} stopped`);
}
