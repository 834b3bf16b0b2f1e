import { Type, type Static } from "@sinclair/typebox";
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
