import { Type, type Static } from "@sinclair/typebox";
import type { Queryable } from "../store/database.js";
import { ApiTimestamp, toApiTimestamp } from "../schema/timestamp.js";

/** `sessionProfileId`: the session profile a login key was issued under. */
export const CredentialRecord = Type.Object({
  publicKey: Type.String(),
  type: Type.String(),
  sessionProfileId: Type.Optional(Type.String()),
});

export const ApiKeyRecord = Type.Object({
  credential: CredentialRecord,
  apiKeyId: Type.String(),
  apiKeyName: Type.String(),
  createdAt: ApiTimestamp,
  updatedAt: ApiTimestamp,
  expirationSeconds: Type.Optional(Type.String()),
});
export type ApiKeyRecord = Static<typeof ApiKeyRecord>;

export interface ApiKeyRow {
  id: string;
  organization_id: string;
  user_id: string;
  name: string;
  public_key: string;
  curve: string;
  credential_type: string;
  expiration_seconds: string | null;
  expires_at: Date | null;
  session_profile_id?: string | null;
  created_at: Date;
  updated_at: Date;
}

export function apiKeyRecord(row: ApiKeyRow): ApiKeyRecord {
  const record: ApiKeyRecord = {
    credential: {
      publicKey: row.public_key,
      type: row.credential_type,
      ...(row.session_profile_id ? { sessionProfileId: row.session_profile_id } : {}),
    },
    apiKeyId: row.id,
    apiKeyName: row.name,
    createdAt: toApiTimestamp(row.created_at),
    updatedAt: toApiTimestamp(row.updated_at),
  };
  if (row.expiration_seconds !== null) record.expirationSeconds = row.expiration_seconds;
  return record;
}

/**
 * A stamp of the API key was accepted: it is proven to be held by its owner, and the auth proxy's account
 * lookups by public key may find it from now on (registering someone else's public key proves nothing).
 * Once per key. A session key that an OIDC token logged in (oauth_login, oauth: the token's nonce binds this
 * key) proves that token's OAuth provider with it, and the email the token vouched for when it is the user's.
 */
export async function markApiKeyProven(db: Queryable, id: string, now: Date): Promise<void> {
  await db.query(
    `WITH key AS (UPDATE api_keys SET proven_at = $2 WHERE id = $1 AND proven_at IS NULL RETURNING proves_oauth_provider_id, proves_verified_email),
          provider AS (UPDATE oauth_providers SET proven_at = $2 WHERE id = (SELECT proves_oauth_provider_id FROM key) AND proven_at IS NULL RETURNING user_id)
     UPDATE users SET email_verified_at = $2, email_self_asserted = false
      WHERE id = (SELECT user_id FROM provider) AND email_verified_at IS NULL AND lower(email) = lower((SELECT proves_verified_email FROM key))`,
    [id, now],
  );
}
