import { Type, type Static } from "@sinclair/typebox";
import { ApiTimestamp, toApiTimestamp } from "../schema/timestamp.js";
import { CredentialRecord } from "./api-key.js";

export const AuthenticatorRecord = Type.Object({
  transports: Type.Array(Type.String()),
  attestationType: Type.String(),
  aaguid: Type.String(),
  credentialId: Type.String(),
  model: Type.String(),
  credential: CredentialRecord,
  authenticatorId: Type.String(),
  authenticatorName: Type.String(),
  createdAt: ApiTimestamp,
  updatedAt: ApiTimestamp,
});
export type AuthenticatorRecord = Static<typeof AuthenticatorRecord>;

export interface AuthenticatorRow {
  id: string;
  organization_id: string;
  user_id: string;
  name: string;
  credential_id: string;
  public_key: string;
  aaguid: string;
  attestation_type: string;
  transports: string[];
  model: string;
  sign_count: number | string;
  /** Hex of the rpIdHash the passkey was registered for (or first used with); NULL until known. */
  rp_id_hash: string | null;
  /** When a stamp of it was first accepted (the auth proxy's lookups find only proven passkeys); not in every read. */
  proven_at?: Date | null;
  created_at: Date;
  updated_at: Date;
}

export function authenticatorRecord(row: AuthenticatorRow): AuthenticatorRecord {
  return {
    transports: row.transports,
    attestationType: row.attestation_type,
    aaguid: row.aaguid,
    credentialId: row.credential_id,
    model: row.model,
    credential: { publicKey: row.public_key, type: "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR" },
    authenticatorId: row.id,
    authenticatorName: row.name,
    createdAt: toApiTimestamp(row.created_at),
    updatedAt: toApiTimestamp(row.updated_at),
  };
}
