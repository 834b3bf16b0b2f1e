import { Chains } from "./chains/chains.js";
import type { Config } from "./config.js";
import { createKeyEncryptionKey, loadOrCreateKeyFile, parseMasterKey } from "./crypto/key-encryption.js";
import { loadOrCreateServerKey } from "./crypto/server-keys.js";
import { openMessaging } from "./messaging/index.js";
import type { Services } from "./services.js";
import { openStoreReporting } from "./store/open.js";
import { createMetrics } from "./metrics.js";
import { loadOrCreateWebhookKey } from "./crypto/webhook-signing-key.js";
import { loadOrCreateAuditKeys } from "./crypto/audit-keys.js";
import { RefusalBudget } from "./audit/refusal-budget.js";

/**
 * Opens the store and loads (or creates) the key-encryption key and the server's own keys. Stamps are checked
 * against `clock` too unless the caller sets `stampClock` afterwards (the dev server checks them against real time).
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
    onWait,
    dataDir: config.dataDir,
    pgliteSharedBuffers: config.pgliteSharedBuffers,
  });
  try {
    const kek = createKeyEncryptionKey(config.masterKey ? parseMasterKey(config.masterKey) : loadOrCreateKeyFile(config.dataDir));
    const signer = await loadOrCreateServerKey(db, kek, "signer");
    const encryptionKey = await loadOrCreateServerKey(db, kek, "encryption");
    const signingKey = await loadOrCreateWebhookKey(db, kek);
    const auditKeys = await loadOrCreateAuditKeys(db, kek);
    return {
      db,
      store: report,
      metrics: createMetrics(db),
      kek,
      signer,
      encryptionKey,
      clock,
      stampClock: clock,
      limits: config.limits,
      messaging: openMessaging(config.messaging),
      oauth: { ...config.oauth, issuer: config.oauth.publicUrl ?? "" },
      chains: new Chains(config.chains),
      broadcaster: { wake: () => undefined },
      audit: {
        keys: auditKeys,
        settings: config.audit,
        recording: config.audit.recording,
        recordQueries: config.audit.queries,
        refusals: new RefusalBudget(config.audit.refusalsPerMinute),
        hmac: auditKeys.hmac,
        wake: () => undefined,
      },
      webhooks: { ...config.webhooks, signingKey, wake: () => undefined },
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}
