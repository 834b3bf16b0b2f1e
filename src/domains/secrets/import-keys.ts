import { p256 } from "@noble/curves/nist.js";
import { InvalidEncryptedBundleError, openEncryptedBundle } from "../../crypto/bundles.js";
import { signBundle } from "../../crypto/signed-bundle.js";
import { failedPrecondition, invalidField } from "../../errors.js";
import type { Services } from "../../services.js";
import type { Queryable } from "../../store/database.js";

/** How long an init_import_secrets target key waits for its secret. */
export const SECRET_IMPORT_KEY_SECONDS = 3600;

const keyContext = (targetPublicKey: string) => `secret-import-key:${targetPublicKey}`;

/**
 * init_import_secrets: one fresh P-256 key per secret, kept sealed until an import consumes it, announced in a
 * message signed by the server's signer key (what @turnkey/crypto's encryptSecretToBundle verifies). The
 * organization's lapsed keys go at the same time.
 */
export async function createSecretImportTargets(
  tx: Queryable,
  services: Services,
  target: { organizationId: string; count: number; now: Date },
): Promise<string[]> {
  await tx.query("DELETE FROM secret_import_keys WHERE organization_id = $1 AND expires_at <= $2", [target.organizationId, target.now]);
  const expiresAt = new Date(target.now.getTime() + SECRET_IMPORT_KEY_SECONDS * 1000);
  const messages: string[] = [];
  for (let i = 0; i < target.count; i++) {
    const privateKey = p256.utils.randomSecretKey();
    const targetPublic = Buffer.from(p256.getPublicKey(privateKey, false)).toString("hex");
    await tx.query(
      `INSERT INTO secret_import_keys (target_public_key, organization_id, sealed_private_key, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5)`,
      [targetPublic, target.organizationId, services.kek.seal(privateKey, keyContext(targetPublic)), target.now, expiresAt],
    );
    messages.push(signBundle({ organizationId: target.organizationId, targetPublic }, services.signer));
  }
  return messages;
}

/** Opens one imported secret's payload with the target key it names, which it consumes (single use). */
export async function openSecretPayload(
  tx: Queryable,
  services: Services,
  source: { organizationId: string; targetPublicKey: string; secretPayload: string; now: Date; field: string },
): Promise<Uint8Array> {
  const [row] = await tx.query<{ sealed_private_key: string; expires_at: Date }>(
    "DELETE FROM secret_import_keys WHERE target_public_key = $1 AND organization_id = $2 RETURNING sealed_private_key, expires_at",
    [source.targetPublicKey.toLowerCase(), source.organizationId],
  );
  if (!row || row.expires_at.getTime() <= source.now.getTime()) {
    throw failedPrecondition(
      `${source.field}.targetPublicKey: no pending import target ${source.targetPublicKey} in organization ${source.organizationId} (each is used once and lapses after ${SECRET_IMPORT_KEY_SECONDS} seconds); call init_import_secrets and encrypt to one of its enclaveTargetMessages`,
      "REQUEST_INVALID",
    );
  }
  const privateKey = services.kek.open(row.sealed_private_key, keyContext(source.targetPublicKey.toLowerCase()));
  try {
    return await openEncryptedBundle(source.secretPayload, privateKey);
  } catch (error) {
    if (error instanceof InvalidEncryptedBundleError) {
      throw invalidField(`${source.field}.secretPayload`, error.message.replace(/^encryptedBundle: /, ""));
    }
    throw error;
  }
}
