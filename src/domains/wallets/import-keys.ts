import { p256 } from "@noble/curves/nist.js";
import { InvalidEncryptedBundleError, openEncryptedBundle } from "../../crypto/bundles.js";
import { signBundle } from "../../crypto/signed-bundle.js";
import { failedPrecondition, invalidArgument } from "../../errors.js";
import type { Services } from "../../services.js";
import type { Queryable } from "../../store/database.js";

export type ImportKind = "WALLET" | "PRIVATE_KEY";

/**
 * init_import_*: a fresh P-256 key the user's client encrypts the secret to, kept sealed until the
 * import uses it; the import bundle is signed by the server's signer key so @turnkey/crypto trusts it.
 * A newer init replaces an unused older key.
 */
export async function createImportBundle(
  tx: Queryable,
  services: Services,
  target: { organizationId: string; userId: string; kind: ImportKind; now: Date },
): Promise<string> {
  const privateKey = p256.utils.randomSecretKey();
  await tx.query(
    `INSERT INTO import_keys (user_id, kind, organization_id, sealed_private_key, created_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (user_id, kind) DO UPDATE SET sealed_private_key = EXCLUDED.sealed_private_key, created_at = EXCLUDED.created_at`,
    [
      target.userId,
      target.kind,
      target.organizationId,
      services.kek.seal(privateKey, `import-key:${target.userId}:${target.kind}`),
      target.now,
    ],
  );
  return signBundle(
    {
      organizationId: target.organizationId,
      userId: target.userId,
      targetPublic: Buffer.from(p256.getPublicKey(privateKey, false)).toString("hex"),
    },
    services.signer,
  );
}

/** The user's pending import key, sealed, read without consuming it (an import's `prepare` opens its bundle with it). */
export async function findImportKey(
  db: Queryable,
  source: { organizationId: string; userId: string; kind: ImportKind },
): Promise<string | undefined> {
  const [row] = await db.query<{ sealed_private_key: string }>(
    "SELECT sealed_private_key FROM import_keys WHERE user_id = $1 AND kind = $2 AND organization_id = $3",
    [source.userId, source.kind, source.organizationId],
  );
  return row?.sealed_private_key;
}

/** Consumes the user's pending import key (in the import's transaction) and answers it, sealed. */
export async function consumeImportKey(tx: Queryable, source: { userId: string; kind: ImportKind }): Promise<string> {
  const [row] = await tx.query<{ sealed_private_key: string }>(
    "DELETE FROM import_keys WHERE user_id = $1 AND kind = $2 RETURNING sealed_private_key",
    [source.userId, source.kind],
  );
  const init = source.kind === "WALLET" ? "init_import_wallet" : "init_import_private_key";
  if (!row)
    throw failedPrecondition(
      `userId: user ${source.userId} has no pending import; call ${init} first and encrypt to its importBundle`,
      "REQUEST_INVALID",
    );
  return row.sealed_private_key;
}

/** Decrypts an import's encryptedBundle with a (sealed) import key of the user; a bundle it cannot open is a 400. */
export async function openImportBundle(
  services: Services,
  source: { userId: string; kind: ImportKind },
  sealedImportKey: string,
  encryptedBundle: string,
): Promise<Uint8Array> {
  const privateKey = services.kek.open(sealedImportKey, `import-key:${source.userId}:${source.kind}`);
  try {
    return await openEncryptedBundle(encryptedBundle, privateKey);
  } catch (error) {
    if (error instanceof InvalidEncryptedBundleError) {
      throw invalidArgument(error.message, [{ field: "encryptedBundle", description: error.message }]);
    }
    throw error;
  }
}

/** Decrypts an import's encryptedBundle with the user's pending import key, which it then consumes. */
export async function openImport(
  tx: Queryable,
  services: Services,
  source: { userId: string; kind: ImportKind },
  encryptedBundle: string,
): Promise<Uint8Array> {
  return openImportBundle(services, source, await consumeImportKey(tx, source), encryptedBundle);
}
