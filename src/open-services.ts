import { Chains } from "./chains/chains.js";
import type { Config } from "./config.js";
import { loadOrCreateKeyFile, parseMasterKey, type KeyEncryptionKey } from "./crypto/key-encryption.js";
import { Custody } from "./crypto/keyring/custody.js";
import { SealedError } from "./crypto/keyring/keyring.js";
import { loadOrCreateServerKey, type ServerKey } from "./crypto/server-keys.js";
import { loadOrCreateWebhookKey, type WebhookSigningKey } from "./crypto/webhook-signing-key.js";
import { openMessaging } from "./messaging/index.js";
import type { Services } from "./services.js";
import type { Queryable } from "./store/database.js";
import { openStoreReporting } from "./store/open.js";
import { createMetrics } from "./metrics.js";
import { RefusalBudget } from "./audit/refusal-budget.js";
import { loadOrCreateAuditKeys, type AuditKeys } from "./crypto/audit-keys.js";

/** The server's own keys, sealed in server_secrets: held only while the process is unsealed. */
interface ServerKeys {
  signer: ServerKey;
  encryptionKey: ServerKey;
  webhookKey: WebhookSigningKey;
  auditKeys: AuditKeys;
}

async function loadServerKeys(db: Queryable, kek: KeyEncryptionKey): Promise<ServerKeys> {
  return {
    signer: await loadOrCreateServerKey(db, kek, "signer"),
    encryptionKey: await loadOrCreateServerKey(db, kek, "encryption"),
    webhookKey: await loadOrCreateWebhookKey(db, kek),
    auditKeys: await loadOrCreateAuditKeys(db, kek),
  };
}

/** The file provider's key: STRONGROOM_MASTER_KEY, or the data directory's key file (created on first use); read once. */
function fileKeyOf(config: Config): () => Buffer {
  let key: Buffer | undefined;
  return () => (key ??= config.masterKey ? parseMasterKey(config.masterKey) : loadOrCreateKeyFile(config.dataDir));
}

/**
 * Opens the store and the custody of its keyring (src/crypto/keyring/custody.ts): the keyring and the server's own
 * keys (signer, encryption, webhook and audit keys) are loaded (or created) now, and again at each unseal. Stamps are checked against `clock` too unless the caller sets `stampClock`
 * afterwards (the dev server checks them against real time).
 */
export async function openServices(
  config: Config,
  clock: () => Date = () => new Date(),
  onWait: (message: string) => void = (message) => process.stderr.write(`strongroom: ${message}\n`),
): Promise<Services> {
  const { db, report } = await openStoreReporting({
    databaseUrl: config.databaseUrl,
    databaseSchema: config.databaseSchema,
    databaseWaitMs: config.databaseWaitMs,
    databasePoolSize: config.databasePoolSize,
    onWait,
    dataDir: config.dataDir,
    pgliteSharedBuffers: config.pgliteSharedBuffers,
  });
  try {
    let keys: ServerKeys | undefined;
    const held = (): ServerKeys => {
      if (!keys) throw new SealedError("the server's own keys");
      return keys;
    };
    const custody = await Custody.open(db, config.seal, fileKeyOf(config), {
      async afterUnseal(keyring) {
        keys = await loadServerKeys(db, keyring);
      },
      afterSeal() {
        keys?.signer.secret.fill(0);
        keys?.encryptionKey.secret.fill(0);
        keys = undefined;
      },
    });
    return {
      db,
      store: report,
      metrics: createMetrics(db),
      custody,
      kek: custody.keyring,
      get signer() {
        return held().signer;
      },
      get encryptionKey() {
        return held().encryptionKey;
      },
      clock,
      stampClock: clock,
      limits: config.limits,
      messaging: openMessaging(config.messaging),
      oauth: { ...config.oauth, issuer: config.oauth.publicUrl ?? "" },
      chains: new Chains(config.chains),
      broadcaster: { wake: () => undefined },
      custodyWorker: { wake: () => undefined },
      audit: {
        get keys() {
          return held().auditKeys;
        },
        settings: config.audit,
        recording: config.audit.recording,
        recordQueries: config.audit.queries,
        refusals: new RefusalBudget(config.audit.refusalsPerMinute),
        hmac: (value: string) => held().auditKeys.hmac(value),
        wake: () => undefined,
      },
      webhooks: {
        ...config.webhooks,
        get signingKey() {
          return held().webhookKey;
        },
        wake: () => undefined,
      },
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}
