import { startDevServer } from "../dev/start-dev-server.js";
import type { InboxMessage } from "../dev/inbox.js";
import type { SeedFixture } from "../dev/seed.js";

export type { InboxMessage, SeedFixture };

export interface StartStrongroomOptions {
  /** Create these users, tags, wallets, policies and sub-organizations after the root user (the `strongroom dev --seed` format). */
  seed?: SeedFixture;
  /** Pin the root organization's id (a UUID). */
  organizationId?: string;
  /** Pin the root user's P-256 API private key (64 hex). */
  apiPrivateKey?: string;
  /** Run the auth proxy (default true), on a free port. */
  authProxy?: boolean;
  /** Server log level (default "silent"). */
  logLevel?: string;
}

export interface Strongroom {
  /** The API's base URL: `apiBaseUrl` of @turnkey/sdk-server. */
  baseUrl: string;
  /** The auth proxy's URL (`authProxyUrl` of @turnkey/core), unless started with `authProxy: false`. */
  authProxyUrl?: string;
  authProxyConfigId?: string;
  organizationId: string;
  userId: string;
  apiPublicKey: string;
  apiPrivateKey: string;
  /** The server's signer key: `dangerouslyOverrideSignerPublicKey` for SDKs that verify enclave signatures. */
  signerPublicKey: string;
  /** Email and SMS the server sent (one-time codes included), oldest first; only those to `to` if given. */
  inbox(to?: string): InboxMessage[];
  /** Back to the state right after start (and seeding): every table, the inbox and the clock. */
  reset(): Promise<void>;
  /** The server's clock: advancing it expires sessions, API keys, codes and approvals as time passing would. */
  clock: { now(): Date; advance(seconds: number): Date };
  close(): Promise<void>;
}

/** A Strongroom on loopback with an in-memory store, for one test file or one test. */
export async function startStrongroom(options: StartStrongroomOptions = {}): Promise<Strongroom> {
  const server = await startDevServer({
    port: 0,
    ...(options.authProxy === false ? {} : { authProxyPort: 0 }),
    ...(options.seed ? { seed: options.seed } : {}),
    ...(options.organizationId ? { organizationId: options.organizationId } : {}),
    ...(options.apiPrivateKey ? { apiPrivateKey: options.apiPrivateKey } : {}),
    logLevel: options.logLevel ?? "silent",
    env: {},
  });
  return {
    baseUrl: server.baseUrl,
    ...(server.authProxyUrl ? { authProxyUrl: server.authProxyUrl } : {}),
    ...(server.authProxyConfigId ? { authProxyConfigId: server.authProxyConfigId } : {}),
    organizationId: server.organizationId,
    userId: server.userId,
    apiPublicKey: server.apiPublicKey,
    apiPrivateKey: server.apiPrivateKey,
    signerPublicKey: server.signerPublicKey,
    inbox: (to) => server.inbox.messages(to),
    reset: () => server.reset(),
    clock: { now: () => server.clock.now(), advance: (seconds) => server.clock.advance(seconds) },
    close: () => server.close(),
  };
}
