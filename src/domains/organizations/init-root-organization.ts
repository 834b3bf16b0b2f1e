import { p256 } from "@noble/curves/nist.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { randomUUID } from "node:crypto";
import { isValidPublicKey } from "../../crypto/public-keys.js";
import type { Services } from "../../services.js";
import { recordAuditEvent } from "../../audit/record.js";

export interface InitOptions {
  /** The new organization's id (a UUID); generated when absent. */
  organizationId?: string;
  organizationName?: string;
  userName?: string;
  userEmail?: string;
  /** A compressed P-256 public key (hex) to register instead of generating a key pair. */
  apiPublicKey?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface InitResult {
  organizationId: string;
  userId: string;
  apiKeyId: string;
  apiPublicKey: string;
  apiPrivateKey?: string;
  signerPublicKey: string;
}

/**
 * Creates a root organization with one root user (root quorum 1 of 1) holding one P-256 API key.
 * This is the only way in besides the API itself, which needs a credential to begin with.
 */
export async function initRootOrganization(services: Services, options: InitOptions = {}): Promise<InitResult> {
  let apiPublicKey = options.apiPublicKey?.toLowerCase();
  let apiPrivateKey: string | undefined;
  if (apiPublicKey === undefined) {
    const secret = p256.utils.randomSecretKey();
    apiPrivateKey = bytesToHex(secret);
    apiPublicKey = bytesToHex(p256.getPublicKey(secret, true));
  } else if (!/^0[23][0-9a-f]{64}$/.test(apiPublicKey) || !isValidPublicKey("p256", apiPublicKey)) {
    throw new Error("--api-public-key must be a compressed P-256 public key: 66 hex characters starting with 02 or 03");
  }
  const now = services.clock();
  if (options.organizationId !== undefined && !UUID.test(options.organizationId)) {
    throw new Error(`--organization-id must be a UUID, got ${JSON.stringify(options.organizationId)}`);
  }
  const organizationId = options.organizationId?.toLowerCase() ?? randomUUID();
  const userId = randomUUID();
  const apiKeyId = randomUUID();
  await services.db.transaction(async (tx) => {
    await tx.query(
      "INSERT INTO organizations (id, name, parent_id, root_quorum_threshold, created_at, updated_at) VALUES ($1, $2, NULL, 1, $3, $3)",
      [organizationId, options.organizationName ?? "Root organization", now],
    );
    await tx.query(
      "INSERT INTO users (id, organization_id, name, email, is_root, created_at, updated_at) VALUES ($1, $2, $3, $4, true, $5, $5)",
      [userId, organizationId, options.userName ?? "Root user", options.userEmail ?? null, now],
    );
    await tx.query(
      `INSERT INTO api_keys (id, organization_id, user_id, name, public_key, curve, credential_type, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, 'API_KEY_CURVE_P256', 'CREDENTIAL_TYPE_API_KEY_P256', $6, $6)`,
      [apiKeyId, organizationId, userId, "Root API key", apiPublicKey, now],
    );
    await recordAuditEvent(tx, services.audit, {
      organizationId,
      time: now,
      type: "organization.initialized",
      details: { userId, apiKeyId, apiPublicKey, by: "strongroom init" },
    });
  });
  services.audit.wake();
  return {
    organizationId,
    userId,
    apiKeyId,
    apiPublicKey,
    ...(apiPrivateKey ? { apiPrivateKey } : {}),
    signerPublicKey: services.signer.publicKeyHex,
  };
}
