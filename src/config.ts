import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseLogFormat, type LogFormat } from "./http/log-destination.js";
import { ERROR_MESSAGE_STYLES, type ErrorMessageStyle } from "./errors.js";

/** Everything configurable, from flags first, then environment variables, then defaults. */
export interface Config {
  dataDir: string;
  host: string;
  port: number;
  /** AUTH_PROXY_PORT: the auth proxy's own port (default 8090; 0 picks a free one; "off" runs none); on the same host. */
  authProxyPort: number | undefined;
  databaseUrl?: string;
  /** DATABASE_SCHEMA: the PostgreSQL schema of Strongroom's tables (default `strongroom`, created when missing). */
  databaseSchema?: string;
  /** DATABASE_POOL_SIZE: the PostgreSQL connections each process (each worker) holds at most. */
  databasePoolSize?: number;
  /** DATABASE_WAIT_SECONDS, in ms: how long a start waits for an unavailable PostgreSQL (default 60 s). */
  databaseWaitMs: number;
  /** PGLITE_SHARED_BUFFERS: the embedded store's buffer pool, e.g. 8MB (the default) or 128MB. */
  pgliteSharedBuffers?: string;
  /** METRICS_PORT: serve Prometheus metrics at /metrics on this port (same host); unset, no metrics endpoint. */
  metricsPort?: number;
  masterKey?: string;
  /** STRONGROOM_SEAL and its provider's settings: what wraps the keyring's data keys. */
  seal: SealSettings;
  logLevel: string;
  /** LOG_FORMAT: `json`, `pretty`, or `auto` (the default: pretty on a terminal, JSON otherwise). */
  logFormat: LogFormat;
  bodyLimitBytes: number;
  /** TRUST_PROXY: comma-separated addresses or CIDRs of proxies whose X-Forwarded-For is believed. */
  trustProxy: string[];
  /** STRONGROOM_ERROR_MESSAGES: "explained" (Strongroom's messages) or "hosted" (the hosted API's, where known). */
  errorMessages: ErrorMessageStyle;
  /** FRAME_ANCESTORS: the origins that may embed the export and import pages (CSP frame-ancestors); default any. */
  frameAncestors: string[];
  webhooks: WebhookSettings;
  evm: EvmSettings;
  chains: ChainSettings;
  oauth: OAuthSettings;
  messaging: MessagingSettings;
  limits: LimitSettings;
  audit: AuditSettings;
}

/** The audit log (src/audit/): what is recorded and how often checkpoints are signed. */
export interface AuditSettings {
  /** STRONGROOM_AUDIT: `on` (the default) records every event; `off` records none (the log keeps what it holds, and says when recording stopped). */
  recording: boolean;
  /** STRONGROOM_AUDIT_QUERIES=1: queries are recorded too (off by default). */
  queries: boolean;
  /**
   * STRONGROOM_AUDIT_REFUSALS_PER_MINUTE: refusals recorded in full per organization, requester and minute in each
   * process (default 10); the rest are counted into one entry (src/audit/refusal-budget.ts).
   */
  refusalsPerMinute: number;
  /** STRONGROOM_AUDIT_CHECKPOINT_SECONDS: a checkpoint is signed once the log grew and the latest is this old (default 10; 0: every pass). */
  checkpointIntervalMs: number;
  /** STRONGROOM_AUDIT_POLL_MS: how often the integrator looks for events committed by other processes (default 500). */
  pollIntervalMs: number;
}

/**
 * What may wrap the keyring's data keys (STRONGROOM_SEAL): the file key, an AES key inside a PKCS#11 token, or an
 * AWS KMS key (each process unseals at start), or a root key split into Shamir shares (the process starts sealed until
 * a threshold of them arrives).
 */
export const SEAL_PROVIDERS = ["file", "pkcs11", "shamir", "awskms"] as const;
export type SealProvider = (typeof SEAL_PROVIDERS)[number];

/** STRONGROOM_PKCS11_*: the token holding the root key, and the key's label there. */
export interface Pkcs11Settings {
  /** STRONGROOM_PKCS11_MODULE: the token's PKCS#11 library (SoftHSM2: /usr/lib/softhsm/libsofthsm2.so). */
  module: string;
  /** STRONGROOM_PKCS11_TOKEN_LABEL */
  tokenLabel: string;
  /** STRONGROOM_PKCS11_PIN (or STRONGROOM_PKCS11_PIN_FILE): the user PIN. */
  pin: string;
  /** STRONGROOM_PKCS11_KEY_LABEL: the AES key's label (default strongroom-root). */
  keyLabel: string;
}

/** STRONGROOM_AWSKMS_KEY_ID; region, credentials and endpoint are the AWS SDK's own settings (AWS_REGION, …). */
export interface AwsKmsSettings {
  keyId: string;
}

export interface SealSettings {
  /** STRONGROOM_SEAL: file (the default), pkcs11, shamir or awskms. */
  provider: SealProvider;
  pkcs11?: Pkcs11Settings;
  awskms?: AwsKmsSettings;
  /**
   * STRONGROOM_KEYRING_POLL_MS: how often each process reads the keyring (new versions, retirements) and the seal
   * requests, and moves a batch of values to the newest version after a rotation. A new version is sealed under
   * from 5 polls after its rotation (every process holds it by then).
   */
  pollMs: number;
}

function sealSettings(env: NodeJS.ProcessEnv, positive: (name: string, fallback: number) => number): SealSettings {
  const provider = env.STRONGROOM_SEAL || "file";
  if (!(SEAL_PROVIDERS as readonly string[]).includes(provider))
    throw new Error(`STRONGROOM_SEAL must be ${SEAL_PROVIDERS.join(", ")}; not ${JSON.stringify(env.STRONGROOM_SEAL)}`);
  const required = (name: string, value = env[name] || undefined) => {
    if (!value) throw new Error(`STRONGROOM_SEAL=${provider} needs ${name}`);
    return value;
  };
  const settings: SealSettings = { provider: provider as SealProvider, pollMs: positive("STRONGROOM_KEYRING_POLL_MS", 1000) };
  if (provider === "pkcs11") {
    settings.pkcs11 = {
      module: required("STRONGROOM_PKCS11_MODULE"),
      tokenLabel: required("STRONGROOM_PKCS11_TOKEN_LABEL"),
      pin: required("STRONGROOM_PKCS11_PIN", secretSetting(env, "STRONGROOM_PKCS11_PIN")),
      keyLabel: env.STRONGROOM_PKCS11_KEY_LABEL || "strongroom-root",
    };
  }
  if (provider === "awskms") settings.awskms = { keyId: required("STRONGROOM_AWSKMS_KEY_ID") };
  return settings;
}

/**
 * Budgets against guessing and flooding. The OTP budgets are security controls: they are counted in the
 * database, so they hold across every process of a cluster. The auth proxy's request budgets are load
 * shedding: each process counts its own (a store round trip per request would itself load the store).
 */
export interface LimitSettings {
  /** OTP_WRONG_GUESSES_PER_CONTACT: wrong codes tried for one contact (any of its codes) per window. */
  otpWrongGuessesPerContact: number;
  /** OTP_CODES_PER_CONTACT: codes issued to one contact of an organization per window (used or not). */
  otpCodesPerContact: number;
  /** OTP_CODES_PER_ADDRESS: codes requested through the auth proxy from one client address per window. */
  otpCodesPerAddress: number;
  /** OTP_RATE_WINDOW_SECONDS: the sliding window of the three OTP budgets. */
  otpWindowSeconds: number;
  /** AUTH_PROXY_REQUESTS_PER_ADDRESS: auth proxy requests from one client address per window, per process. */
  proxyRequestsPerAddress: number;
  /** AUTH_PROXY_REQUESTS_PER_CONFIG: auth proxy requests for one config per window, per process. */
  proxyRequestsPerConfig: number;
  /** AUTH_PROXY_RATE_WINDOW_SECONDS: the window of the two auth proxy budgets. */
  proxyWindowSeconds: number;
  /** AUTH_PROXY_SIGNUP_MAX_WALLET_ACCOUNTS: accounts a signup's wallet may ask for. */
  signupWalletAccounts: number;
}

export interface MessagingSettings {
  /** SMTP_URL: smtp://user:pass@host:587 (or smtps://): email for OTP codes, email auth and recovery. */
  smtpUrl?: string;
  /** SMTP_FROM: the default sender, e.g. "Acme <no-reply@acme.example>". */
  smtpFrom: string;
  /** SMS_WEBHOOK_URL: receives a POST of JSON {to, channel, text} for each SMS or WhatsApp message. */
  smsWebhookUrl?: string;
}

export interface OAuth2ProviderEndpoints {
  tokenUrl: string;
  userInfoUrl: string;
}

export interface OAuthSettings {
  /** STRONGROOM_PUBLIC_URL: the issuer (`iss`) of Strongroom's own OIDC tokens; unset, the listening URL. */
  publicUrl?: string;
  /** OIDC_ISSUERS: comma-separated issuer URLs whose ID tokens oauth_login accepts (JWKS found by discovery). */
  oidcIssuers: string[];
  /** OAUTH2_TIMEOUT_MS: how long one call to a provider (token, user info, discovery, JWKS) may take. */
  timeoutMs: number;
  /** OAUTH2_X_TOKEN_URL / OAUTH2_X_USERINFO_URL, OAUTH2_DISCORD_TOKEN_URL / OAUTH2_DISCORD_USERINFO_URL. */
  providers: { x: OAuth2ProviderEndpoints; discord: OAuth2ProviderEndpoints };
}

function httpUrl(value: string, name: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name}: ${JSON.stringify(value)} is not a URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error(`${name}: ${JSON.stringify(value)} must be an http(s) URL`);
  return value;
}

/** Trailing slashes dropped, so an issuer compares equal to the `iss` its tokens carry. */
const issuerUrl = (value: string, name: string) => httpUrl(value, name).replace(/\/+$/, "");

/** The block watcher's settings; it reads every configured EVM chain (ChainSettings). */
export interface EvmSettings {
  /** EVM_POLL_MS: how often new blocks are read. */
  pollIntervalMs: number;
  /** EVM_FINALITY_DEPTH: blocks after which a change counts as final; unset, the node's `finalized` block decides. */
  finalityDepth?: number;
}

/**
 * The chains Strongroom sends on and reads balances from. CHAIN_RPC_URLS maps CAIP-2 ids to JSON-RPC endpoints,
 * `<caip2>=<url>[,<url>...]`, entries separated by `;` or whitespace: several URLs for one chain are tried in
 * order (failover). EVM_RPC_URL, when set, adds one EVM chain whose CAIP-2 id (`eip155:<chainId>`) is read from
 * the node itself.
 */
export interface ChainSettings {
  /** CHAIN_RPC_URLS, by CAIP-2 id. */
  rpcUrls: Record<string, string[]>;
  /** EVM_RPC_URL: one more EVM chain, whose id the node answers. */
  evmRpcUrl?: string;
  /** CHAIN_RPC_TIMEOUT_MS: how long one JSON-RPC call may take before the next URL (or a retry) is tried. */
  timeoutMs: number;
  /** CHAIN_BROADCAST_POLL_MS: how often the broadcaster looks at transactions not yet included. */
  pollIntervalMs: number;
  /** CHAIN_REBROADCAST_MS: a transaction not yet mined is sent again (the same signed bytes) after this long. */
  rebroadcastMs: number;
  /** CHAIN_ASSETS: the tokens (and native-asset names) of each chain, for balances and the supported assets. */
  assets: Record<string, AssetSetting[]>;
}

/** One asset of CHAIN_ASSETS: a token (`address`: an ERC-20 contract or an SPL mint), or without one, the chain's native asset. */
export interface AssetSetting {
  address?: string;
  symbol: string;
  name: string;
  decimals: number;
  logoUrl?: string;
  stable?: boolean;
}

/** Parses CHAIN_ASSETS: a JSON object of CAIP-2 id → list of assets; throws naming what is wrong. */
export function parseChainAssets(value: string | undefined): Record<string, AssetSetting[]> {
  if (!value?.trim()) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new Error("CHAIN_ASSETS: not JSON (an object of CAIP-2 id -> [{address?, symbol, name, decimals}])");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new Error("CHAIN_ASSETS: must be a JSON object keyed by CAIP-2 id");
  for (const [caip2, list] of Object.entries(parsed)) {
    if (!CAIP2_PATTERN.test(caip2)) throw new Error(`CHAIN_ASSETS: ${JSON.stringify(caip2)} is not a CAIP-2 id`);
    if (!Array.isArray(list)) throw new Error(`CHAIN_ASSETS: ${caip2} must be a list of assets`);
    for (const [i, asset] of (list as AssetSetting[]).entries()) {
      const at = `CHAIN_ASSETS: ${caip2}[${i}]`;
      if (typeof asset.symbol !== "string" || typeof asset.name !== "string") throw new Error(`${at} needs a symbol and a name`);
      if (!Number.isInteger(asset.decimals) || asset.decimals < 0 || asset.decimals > 36)
        throw new Error(`${at}: decimals must be an integer from 0 to 36`);
      if (asset.address !== undefined && typeof asset.address !== "string") throw new Error(`${at}: address must be a string`);
      if (caip2.startsWith("eip155:") && asset.address !== undefined && !/^0x[0-9a-fA-F]{40}$/.test(asset.address))
        throw new Error(`${at}: address must be an ERC-20 contract address (0x and 40 hex digits)`);
    }
  }
  return parsed as Record<string, AssetSetting[]>;
}

export const CHAIN_RPC_URLS_SETTING = "CHAIN_RPC_URLS";

/** CAIP-2: a namespace and a reference (https://chainagnostic.org/CAIPs/caip-2). */
export const CAIP2_PATTERN = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/;

/** Parses CHAIN_RPC_URLS (see ChainSettings); throws naming the entry that is wrong. */
export function parseChainRpcUrls(value: string | undefined): Record<string, string[]> {
  const chains: Record<string, string[]> = {};
  for (const entry of (value ?? "").split(/[;\s]+/).filter(Boolean)) {
    const at = entry.indexOf("=");
    const caip2 = at < 0 ? entry : entry.slice(0, at);
    if (at < 0 || !CAIP2_PATTERN.test(caip2))
      throw new Error(
        `${CHAIN_RPC_URLS_SETTING}: ${JSON.stringify(entry)} is not <caip2>=<url>[,<url>...] (e.g. eip155:1=https://node.example)`,
      );
    const urls = entry
      .slice(at + 1)
      .split(",")
      .filter(Boolean)
      .map((url) => httpUrl(url, `${CHAIN_RPC_URLS_SETTING} (${caip2})`));
    if (urls.length === 0) throw new Error(`${CHAIN_RPC_URLS_SETTING}: ${caip2} has no URL`);
    if (!caip2.startsWith("eip155:") && !caip2.startsWith("solana:"))
      throw new Error(`${CHAIN_RPC_URLS_SETTING}: ${caip2}: only eip155 (EVM) and solana chains can be configured`);
    chains[caip2] = [...(chains[caip2] ?? []), ...urls];
  }
  return chains;
}

export interface WebhookSettings {
  /** STRONGROOM_WEBHOOK_ALLOW_PRIVATE=1: allow http and loopback/private destinations (development, tests). */
  allowPrivate: boolean;
  /** How often the delivery worker looks for due deliveries when not woken by a new event. */
  pollIntervalMs: number;
  /** First retry delay; each retry doubles it (with jitter) up to an hour. */
  retryBaseMs: number;
  /** Attempts before a retryable failure becomes final. */
  maxAttempts: number;
  /** How long one delivery attempt may take. */
  timeoutMs: number;
}

export interface ConfigFlags {
  dataDir?: string;
  host?: string;
  port?: string | number;
  authProxyPort?: string | number;
  metricsPort?: string | number;
}

/** "memory://" keeps the embedded store in memory only (tests, throwaway servers). */
function resolveDataDir(dir: string): string {
  return dir.startsWith("memory://") ? dir : resolve(dir);
}

/**
 * A secret from the variable itself or, when only `<NAME>_FILE` is set, from that file (trimmed): container
 * secrets (`/run/secrets/…`) then never pass through the environment. Both set is refused as ambiguous.
 */
export function secretSetting(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const direct = env[name] || undefined;
  const file = env[`${name}_FILE`] || undefined;
  if (direct !== undefined && file !== undefined) throw new Error(`set ${name} or ${name}_FILE, not both`);
  if (file === undefined) return direct;
  let text: string;
  try {
    text = readFileSync(file, "utf8").trim();
  } catch (error) {
    throw new Error(`${name}_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (text === "") throw new Error(`${name}_FILE: ${file} is empty`);
  return text;
}

/** AUTH_PROXY_PORT values that run no auth proxy. */
const AUTH_PROXY_OFF = ["off", "none", "false", "disabled"];

export function resolveConfig(flags: ConfigFlags = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(flags.port ?? env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port ${String(flags.port ?? env.PORT)}`);
  const authProxySetting = String(flags.authProxyPort ?? env.AUTH_PROXY_PORT ?? 8090);
  const authProxyOff = AUTH_PROXY_OFF.includes(authProxySetting.toLowerCase());
  const authProxyPort = authProxyOff ? undefined : Number(authProxySetting);
  if (authProxyPort !== undefined && (!Number.isInteger(authProxyPort) || authProxyPort < 0 || authProxyPort > 65535)) {
    throw new Error(`invalid auth proxy port ${authProxySetting} (a port number, 0 for a free one, or "off")`);
  }
  const bodyLimitBytes = Number(env.STRONGROOM_BODY_LIMIT_BYTES ?? 2 * 1024 * 1024);
  if (!Number.isInteger(bodyLimitBytes) || bodyLimitBytes <= 0) throw new Error("STRONGROOM_BODY_LIMIT_BYTES must be a positive integer");
  const metricsSetting = flags.metricsPort ?? (env.METRICS_PORT || undefined);
  const metricsPort = metricsSetting === undefined ? undefined : Number(metricsSetting);
  if (metricsPort !== undefined && (!Number.isInteger(metricsPort) || metricsPort < 0 || metricsPort > 65535)) {
    throw new Error(`invalid metrics port ${String(metricsSetting)} (--metrics-port, METRICS_PORT)`);
  }
  const databaseUrl = secretSetting(env, "DATABASE_URL");
  const databaseSchema = env.DATABASE_SCHEMA || undefined;
  if (databaseSchema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(databaseSchema)) {
    throw new Error(`DATABASE_SCHEMA ${JSON.stringify(databaseSchema)} must be a lowercase name (letters, digits, _)`);
  }
  const positive = (name: string, fallback: number): number => {
    const value = Number(env[name] ?? fallback);
    if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`);
    return value;
  };
  const seal = sealSettings(env, positive);
  const masterKey = secretSetting(env, "STRONGROOM_MASTER_KEY");
  // Only the file provider needs a master key: the others' roots are in the token, in KMS, or in the shares.
  if (databaseUrl && !masterKey && seal.provider === "file") {
    throw new Error(
      "STRONGROOM_MASTER_KEY is required with DATABASE_URL: every process of a cluster must open the keyring with the same key",
    );
  }
  const waitSeconds = Number(env.DATABASE_WAIT_SECONDS ?? 60);
  if (!Number.isInteger(waitSeconds) || waitSeconds < 0)
    throw new Error("DATABASE_WAIT_SECONDS must be a whole number of seconds (0: do not wait)");
  const errorMessages = (env.STRONGROOM_ERROR_MESSAGES || "explained") as ErrorMessageStyle;
  if (!ERROR_MESSAGE_STYLES.includes(errorMessages))
    throw new Error(`STRONGROOM_ERROR_MESSAGES must be ${ERROR_MESSAGE_STYLES.join(" or ")}, not ${JSON.stringify(errorMessages)}`);
  const frameAncestors = (env.FRAME_ANCESTORS || "*").split(/[\s,]+/).filter(Boolean);
  for (const source of frameAncestors) {
    if (!/^(?:'self'|'none'|[^\s;,'"]+)$/.test(source))
      throw new Error(`FRAME_ANCESTORS: ${JSON.stringify(source)} is not an origin, a host pattern, *, 'self' or 'none'`);
  }
  return {
    dataDir: resolveDataDir(flags.dataDir ?? env.STRONGROOM_DATA_DIR ?? ".strongroom"),
    host: flags.host ?? env.HOST ?? "127.0.0.1",
    port,
    authProxyPort,
    databaseUrl,
    databaseSchema,
    databaseWaitMs: waitSeconds * 1000,
    databasePoolSize: env.DATABASE_POOL_SIZE ? positive("DATABASE_POOL_SIZE", 1) : undefined,
    pgliteSharedBuffers: env.PGLITE_SHARED_BUFFERS || undefined,
    metricsPort,
    masterKey,
    seal,
    logLevel: env.LOG_LEVEL ?? "info",
    logFormat: parseLogFormat(env.LOG_FORMAT),
    bodyLimitBytes,
    trustProxy: (env.TRUST_PROXY ?? "")
      .split(",")
      .map((p) => p.trim())
      .filter(Boolean),
    errorMessages,
    frameAncestors,
    evm: {
      pollIntervalMs: positive("EVM_POLL_MS", 2000),
      finalityDepth: env.EVM_FINALITY_DEPTH ? positive("EVM_FINALITY_DEPTH", 1) : undefined,
    },
    chains: {
      rpcUrls: parseChainRpcUrls(env[CHAIN_RPC_URLS_SETTING]),
      evmRpcUrl: env.EVM_RPC_URL ? httpUrl(env.EVM_RPC_URL, "EVM_RPC_URL") : undefined,
      timeoutMs: positive("CHAIN_RPC_TIMEOUT_MS", 10_000),
      pollIntervalMs: positive("CHAIN_BROADCAST_POLL_MS", 1000),
      rebroadcastMs: positive("CHAIN_REBROADCAST_MS", 15_000),
      assets: parseChainAssets(env.CHAIN_ASSETS),
    },
    limits: {
      otpWrongGuessesPerContact: positive("OTP_WRONG_GUESSES_PER_CONTACT", 10),
      otpCodesPerContact: positive("OTP_CODES_PER_CONTACT", 10),
      otpCodesPerAddress: positive("OTP_CODES_PER_ADDRESS", 30),
      otpWindowSeconds: positive("OTP_RATE_WINDOW_SECONDS", 3600),
      proxyRequestsPerAddress: positive("AUTH_PROXY_REQUESTS_PER_ADDRESS", 120),
      proxyRequestsPerConfig: positive("AUTH_PROXY_REQUESTS_PER_CONFIG", 3000),
      proxyWindowSeconds: positive("AUTH_PROXY_RATE_WINDOW_SECONDS", 60),
      signupWalletAccounts: positive("AUTH_PROXY_SIGNUP_MAX_WALLET_ACCOUNTS", 10),
    },
    messaging: {
      smtpUrl: urlSetting(env, "SMTP_URL", ["smtp:", "smtps:"]),
      smtpFrom: env.SMTP_FROM || "Strongroom <no-reply@localhost>",
      smsWebhookUrl: urlSetting(env, "SMS_WEBHOOK_URL", ["http:", "https:"]),
    },
    oauth: {
      publicUrl: env.STRONGROOM_PUBLIC_URL ? issuerUrl(env.STRONGROOM_PUBLIC_URL, "STRONGROOM_PUBLIC_URL") : undefined,
      oidcIssuers: (env.OIDC_ISSUERS ?? "")
        .split(",")
        .map((i) => i.trim())
        .filter(Boolean)
        .map((i) => issuerUrl(i, "OIDC_ISSUERS")),
      timeoutMs: positive("OAUTH2_TIMEOUT_MS", 10_000),
      providers: {
        x: {
          tokenUrl: httpUrl(env.OAUTH2_X_TOKEN_URL || "https://api.x.com/2/oauth2/token", "OAUTH2_X_TOKEN_URL"),
          userInfoUrl: httpUrl(env.OAUTH2_X_USERINFO_URL || "https://api.x.com/2/users/me", "OAUTH2_X_USERINFO_URL"),
        },
        discord: {
          tokenUrl: httpUrl(env.OAUTH2_DISCORD_TOKEN_URL || "https://discord.com/api/oauth2/token", "OAUTH2_DISCORD_TOKEN_URL"),
          userInfoUrl: httpUrl(env.OAUTH2_DISCORD_USERINFO_URL || "https://discord.com/api/users/@me", "OAUTH2_DISCORD_USERINFO_URL"),
        },
      },
    },
    audit: auditSettings(env, positive),
    webhooks: {
      allowPrivate: env.STRONGROOM_WEBHOOK_ALLOW_PRIVATE === "1" || env.STRONGROOM_WEBHOOK_ALLOW_PRIVATE === "true",
      pollIntervalMs: positive("STRONGROOM_WEBHOOK_POLL_MS", 500),
      retryBaseMs: positive("STRONGROOM_WEBHOOK_RETRY_BASE_MS", 1000),
      maxAttempts: positive("STRONGROOM_WEBHOOK_MAX_ATTEMPTS", 10),
      timeoutMs: positive("STRONGROOM_WEBHOOK_TIMEOUT_MS", 10_000),
    },
  };
}

function auditSettings(env: NodeJS.ProcessEnv, positive: (name: string, fallback: number) => number): AuditSettings {
  const recording = (env.STRONGROOM_AUDIT || "on").toLowerCase();
  if (recording !== "on" && recording !== "off") throw new Error(`STRONGROOM_AUDIT must be on or off, not ${JSON.stringify(recording)}`);
  const queries = (env.STRONGROOM_AUDIT_QUERIES || "0").toLowerCase();
  if (!["0", "1", "true", "false"].includes(queries)) throw new Error("STRONGROOM_AUDIT_QUERIES must be 1 or 0");
  const checkpointSeconds = Number(env.STRONGROOM_AUDIT_CHECKPOINT_SECONDS ?? 10);
  if (!Number.isFinite(checkpointSeconds) || checkpointSeconds < 0)
    throw new Error("STRONGROOM_AUDIT_CHECKPOINT_SECONDS must be a number of seconds, 0 or more");
  const refusalsPerMinute = Number(env.STRONGROOM_AUDIT_REFUSALS_PER_MINUTE ?? 10);
  if (!Number.isInteger(refusalsPerMinute) || refusalsPerMinute < 0)
    throw new Error("STRONGROOM_AUDIT_REFUSALS_PER_MINUTE must be a whole number, 0 or more");
  return {
    recording: recording === "on",
    queries: queries === "1" || queries === "true",
    refusalsPerMinute,
    checkpointIntervalMs: Math.round(checkpointSeconds * 1000),
    pollIntervalMs: positive("STRONGROOM_AUDIT_POLL_MS", 500),
  };
}

function urlSetting(env: NodeJS.ProcessEnv, name: string, protocols: string[]): string | undefined {
  const value = env[name];
  if (!value) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name} is not a URL`);
  }
  if (!protocols.includes(url.protocol)) throw new Error(`${name} must start with ${protocols.map((p) => `${p}//`).join(" or ")}`);
  return value;
}
