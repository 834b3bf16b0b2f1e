import type { KeyEncryptionKey } from "./crypto/key-encryption.js";
import type { Custody } from "./crypto/keyring/custody.js";
import type { ServerKey } from "./crypto/server-keys.js";
import type { AuditSettings, LimitSettings, OAuthSettings, WebhookSettings } from "./config.js";
import type { AuditKeys } from "./crypto/audit-keys.js";
import type { AuditRecorder } from "./audit/record.js";
import type { Messaging } from "./messaging/index.js";
import type { Chains } from "./chains/chains.js";
import type { Database } from "./store/database.js";
import type { StoreReport } from "./store/open.js";
import type { Metrics } from "./metrics.js";
import type { WebhookSigningKey } from "./crypto/webhook-signing-key.js";

/** What handlers may use besides their transaction: plain objects, no container. */
export interface Services {
  db: Database;
  /** What the store is and what opening it did (for the start-up log). */
  store: StoreReport;
  /** Prometheus metrics of this process (served on METRICS_PORT). */
  metrics: Metrics;
  /** The keyring's seal state: sealed or unsealed, unseal shares, the provider (STRONGROOM_SEAL). */
  custody: Custody;
  /** The keyring (custody.keyring): seals and opens key material; refuses while sealed (SealedError). */
  kek: KeyEncryptionKey;
  /** The server's own keys: reading them while sealed throws SealedError (the API answers 503 before that). */
  signer: ServerKey;
  /** A P-256 key of its own that clients encrypt secrets to (and the first half of app proofs' key). */
  encryptionKey: ServerKey;
  /** The time every expiry is judged by: sessions, approvals, API keys, codes, windows (the dev clock moves it). */
  clock: () => Date;
  /**
   * The time a request's `timestampMs` must be fresh against (and the server's own stamps carry): real time in
   * `serve` and `dev`, so moving the dev clock expires what it should without making real SDK stamps stale.
   */
  stampClock: () => Date;
  /** Rate limits and budgets (OTP guesses and codes, auth proxy requests, signup wallets). */
  limits: LimitSettings;
  /** Email and SMS/WhatsApp delivery, each present only when configured (SMTP_URL, SMS_WEBHOOK_URL). */
  messaging: Messaging;
  /** OAuth 2.0 providers, accepted OIDC issuers, and `issuer`: Strongroom's own (set once it listens, if not configured). */
  oauth: OAuthSettings & { issuer: string };
  /** The chains the operator configured (CHAIN_RPC_URLS, EVM_RPC_URL), for sending and reading. */
  chains: Chains;
  /** Tells the broadcaster that new sends were committed (no-op when none runs). */
  broadcaster: { wake(): void };
  /** Tells the custody worker to read the keyring and the seal requests now (no-op when none runs). */
  custodyWorker: { wake(): void };
  /** The audit log: its keys and settings, and what the pipelines record events with (src/audit/). */
  audit: AuditRecorder & { keys: AuditKeys; settings: AuditSettings; wake(): void };
  webhooks: WebhookSettings & {
    signingKey: WebhookSigningKey;
    /** Tells the delivery worker that new deliveries were committed (no-op when none runs). */
    wake(): void;
  };
}
