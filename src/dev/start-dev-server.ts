import { p256 } from "@noble/curves/nist.js";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { resolveConfig } from "../config.js";
import { initRootOrganization } from "../domains/organizations/init-root-organization.js";
import { startServer } from "../server/start.js";
import type { Services } from "../services.js";
import { devClock, type DevClock } from "./clock.js";
import { createInbox, type Inbox } from "./inbox.js";
import { registerDevRoutes } from "./routes.js";
import { actAsRoot, applySeed, describeSeed, type SeedFixture } from "./seed.js";
import { restoreSnapshot, takeSnapshot } from "./snapshot.js";

export interface DevServerOptions {
  /** A directory to keep the store in; in memory (gone on close) when absent. */
  dataDir?: string;
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** The auth proxy's port (0 picks a free one); `undefined`: no auth proxy. */
  authProxyPort?: number;
  /** Pin the root organization's id (a UUID), e.g. in CI. */
  organizationId?: string;
  /** Pin the root user's P-256 API key: the private key (hex), and optionally its compressed public key to check it against. */
  apiPrivateKey?: string;
  apiPublicKey?: string;
  seed?: SeedFixture;
  /**
   * Host names (no port) the /dev/ controls answer besides the loopback names, e.g. a container's service name;
   * STRONGROOM_DEV_ALLOWED_HOSTS (comma-separated) in `env` adds to them.
   */
  allowedHosts?: string[];
  logLevel?: string;
  logStream?: NodeJS.WritableStream;
  /** Where delivered email and text messages are echoed (default: nowhere). */
  echo?: (text: string) => void;
  /** Environment for the rest of the configuration (SMTP_URL, LOG_LEVEL…); DATABASE_URL is ignored: dev is embedded. */
  env?: NodeJS.ProcessEnv;
}

export interface DevServer {
  baseUrl: string;
  authProxyUrl?: string;
  authProxyConfigId?: string;
  organizationId: string;
  userId: string;
  apiPublicKey: string;
  apiPrivateKey: string;
  signerPublicKey: string;
  inbox: Inbox;
  clock: DevClock;
  services: Services;
  /** What this start's seed created, as a sentence ("seeded 1 user (alice), …"); absent when no seed was applied. */
  seeded?: string;
  /** Back to the state right after seeding: every table, the inbox and the clock. */
  reset(): Promise<void>;
  close(): Promise<void>;
  /** The values as KEY=value lines, ready for a .env file; each name prefixed with `prefix` when given (e.g. TURNKEY_). */
  envLines(prefix?: string): string;
}

interface Identity {
  organizationId: string;
  userId: string;
  apiPublicKey: string;
  apiPrivateKey: string;
  authProxyConfigId?: string;
  /** The seed's summary, when this start applied one. */
  seeded?: string;
}

const IDENTITY_FILE = "dev-identity.json";

function pinnedKey(options: DevServerOptions): { publicKey: string; privateKey: string } | undefined {
  if (options.apiPrivateKey === undefined) {
    if (options.apiPublicKey !== undefined) {
      throw new Error("--api-public-key needs --api-private-key with it: the dev server prints both for the SDK");
    }
    return undefined;
  }
  const privateKey = options.apiPrivateKey.toLowerCase().replace(/^0x/, "");
  let publicKey: string;
  try {
    publicKey = Buffer.from(p256.getPublicKey(Buffer.from(privateKey, "hex"), true)).toString("hex");
  } catch {
    throw new Error("--api-private-key must be a P-256 private key: 64 hex characters");
  }
  if (!/^[0-9a-f]{64}$/.test(privateKey)) throw new Error("--api-private-key must be a P-256 private key: 64 hex characters");
  if (options.apiPublicKey !== undefined && options.apiPublicKey.toLowerCase() !== publicKey) {
    throw new Error(`--api-public-key ${options.apiPublicKey} is not the public key of --api-private-key (${publicKey})`);
  }
  return { publicKey, privateKey };
}

/** The identity a data directory's first start created, its private key sealed with the directory's master key. */
function readIdentity(services: Services, dataDir: string): Identity | undefined {
  const path = join(dataDir, IDENTITY_FILE);
  if (!existsSync(path)) return undefined;
  const stored = JSON.parse(readFileSync(path, "utf8")) as Omit<Identity, "apiPrivateKey"> & { sealedApiPrivateKey: string };
  const { sealedApiPrivateKey, ...rest } = stored;
  return { ...rest, apiPrivateKey: Buffer.from(services.kek.open(sealedApiPrivateKey, IDENTITY_FILE)).toString("hex") };
}

function writeIdentity(services: Services, dataDir: string, identity: Identity): void {
  const { apiPrivateKey, seeded: _seeded, ...rest } = identity;
  const sealedApiPrivateKey = services.kek.seal(Buffer.from(apiPrivateKey, "hex"), IDENTITY_FILE);
  writeFileSync(join(dataDir, IDENTITY_FILE), JSON.stringify({ ...rest, sealedApiPrivateKey }, null, 2) + "\n", { mode: 0o600 });
}

async function createIdentity(services: Services, options: DevServerOptions, withAuthProxy: boolean): Promise<Identity> {
  const key =
    pinnedKey(options) ??
    (() => {
      const secret = p256.utils.randomSecretKey();
      return { privateKey: Buffer.from(secret).toString("hex"), publicKey: Buffer.from(p256.getPublicKey(secret, true)).toString("hex") };
    })();
  const root = await initRootOrganization(services, {
    organizationName: "Development organization",
    userName: "Developer",
    apiPublicKey: key.publicKey,
    ...(options.organizationId ? { organizationId: options.organizationId } : {}),
  });
  const identity: Identity = {
    organizationId: root.organizationId,
    userId: root.userId,
    apiPublicKey: key.publicKey,
    apiPrivateKey: key.privateKey,
  };
  const asRoot = { organizationId: root.organizationId, apiPublicKey: key.publicKey, apiPrivateKey: Buffer.from(key.privateKey, "hex") };
  if (withAuthProxy) {
    await actAsRoot(services, asRoot, "enable_auth_proxy", {});
    const [config] = await services.db.query<{ id: string }>("SELECT id FROM auth_proxy_configs WHERE organization_id = $1", [
      root.organizationId,
    ]);
    identity.authProxyConfigId = config!.id;
  }
  if (options.seed) identity.seeded = describeSeed(await applySeed(services, asRoot, options.seed));
  return identity;
}

/** The host names the /dev/ controls accept besides loopback names: the option's and STRONGROOM_DEV_ALLOWED_HOSTS'. */
function devAllowedHosts(options: DevServerOptions, env: NodeJS.ProcessEnv): string[] {
  const fromEnv = (env.STRONGROOM_DEV_ALLOWED_HOSTS ?? "").split(",");
  return [...(options.allowedHosts ?? []), ...fromEnv].map((host) => host.trim().toLowerCase()).filter((host) => host !== "");
}

/**
 * A Strongroom for development and tests: the embedded store (in memory unless a data directory is given),
 * a root organization with a root user and API key (pinned or generated), the auth proxy enabled when it
 * runs, a seed applied, email and text messages kept in an inbox, and the /dev/ controls (inbox, reset, clock).
 */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const env: NodeJS.ProcessEnv = { ...(options.env ?? {}) };
  delete env.DATABASE_URL;
  const inMemory = options.dataDir === undefined;
  if (inMemory) env.STRONGROOM_MASTER_KEY = randomBytes(32).toString("hex");
  if (options.logLevel) env.LOG_LEVEL = options.logLevel;
  const config = resolveConfig(
    {
      dataDir: options.dataDir ?? "memory://",
      host: options.host ?? "127.0.0.1",
      port: options.port ?? 0,
      authProxyPort: options.authProxyPort ?? "off",
    },
    env,
  );
  // A moved clock wakes the background loops: what falls due with time (a sweep, a retry, a checkpoint) is looked at now.
  let wakeLoops: () => void = () => undefined;
  const clock = devClock(() => wakeLoops());
  const inbox = createInbox(clock.now, options.echo ?? (() => undefined));
  let reset: () => Promise<void> = async () => undefined;
  let identity: Identity | undefined;
  const server = await startServer(config, clock.now, options.logStream, {
    adjustServices: (services) => {
      wakeLoops = () => {
        services.webhooks.wake();
        services.audit.wake();
      };
      services.messaging = inbox.messaging(services.messaging);
      // The clock moves what expires; stamps stay checked against real time, so the SDK's stamps never go stale.
      services.stampClock = () => new Date();
    },
    extend: (app) => registerDevRoutes(app, { inbox, clock, reset: () => reset(), allowedHosts: devAllowedHosts(options, env) }),
    // Before the server listens, so that the organization (pinned in CI, say) exists, seeded, once /health answers.
    beforeListen: async (services) => {
      identity = inMemory ? undefined : readIdentity(services, config.dataDir);
      if (identity && options.organizationId && identity.organizationId !== options.organizationId.toLowerCase()) {
        throw new Error(`${config.dataDir} holds organization ${identity.organizationId}, not --organization-id ${options.organizationId}`);
      }
      if (!identity) {
        identity = await createIdentity(services, options, config.authProxyPort !== undefined);
        if (!inMemory) writeIdentity(services, config.dataDir, identity);
        await takeSnapshot(services.db);
      }
    },
  });
  try {
    const { services } = server;
    if (!identity) throw new Error("the dev server started without its identity");
    reset = async () => {
      await restoreSnapshot(services.db);
      inbox.clear();
      clock.reset();
    };
    const values: Record<string, string | undefined> = {
      ORGANIZATION_ID: identity.organizationId,
      API_PUBLIC_KEY: identity.apiPublicKey,
      API_PRIVATE_KEY: identity.apiPrivateKey,
      BASE_URL: server.url,
      SIGNER_PUBLIC_KEY: services.signer.publicKeyHex,
      AUTH_PROXY_URL: server.authProxyUrl,
      AUTH_PROXY_CONFIG_ID: server.authProxyUrl ? identity.authProxyConfigId : undefined,
    };
    return {
      baseUrl: server.url,
      ...(server.authProxyUrl ? { authProxyUrl: server.authProxyUrl } : {}),
      ...(server.authProxyUrl && identity.authProxyConfigId ? { authProxyConfigId: identity.authProxyConfigId } : {}),
      organizationId: identity.organizationId,
      userId: identity.userId,
      apiPublicKey: identity.apiPublicKey,
      apiPrivateKey: identity.apiPrivateKey,
      signerPublicKey: services.signer.publicKeyHex,
      ...(identity.seeded ? { seeded: identity.seeded } : {}),
      inbox,
      clock,
      services,
      reset: () => reset(),
      close: () => server.close(),
      envLines: (prefix = "") =>
        Object.entries(values)
          .filter(([, value]) => value !== undefined)
          .map(([name, value]) => `${prefix}${name}=${value}\n`)
          .join(""),
    };
  } catch (error) {
    await server.close();
    throw error;
  }
}
