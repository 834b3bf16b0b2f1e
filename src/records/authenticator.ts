import { Type, type Static } from "@sinclair/typebox";
import { ApiTimestamp, toApiTimestamp } from "../schema/timestamp.js";
import type { Queryable } from "../store/database.js";
import type { OrganizationRow } from "./organization.js";
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

/** An authenticator with the name and root flag of its user. */
export type AuthenticatorOfUser = AuthenticatorRow & { user_name: string; is_root: boolean };

/**
 * The passkey with this credential id in the organization or its parent, the organization's own first (a
 * credential id present in both resolves to the organization's user).
 */
export async function findAuthenticatorInOrganization(
  db: Queryable,
  credentialId: string,
  organization: OrganizationRow,
): Promise<AuthenticatorOfUser | undefined> {
  const [row] = await db.query<AuthenticatorOfUser>(
    `SELECT a.*, u.name AS user_name, u.is_root FROM authenticators a JOIN users u ON u.id = a.user_id
      WHERE a.credential_id = $1 AND a.organization_id IN ($2, $3)
      ORDER BY (a.organization_id = $2) DESC LIMIT 1`,
    [credentialId, organization.id, organization.parent_id ?? organization.id],
  );
  return row;
}

/**
 * Binds a passkey registered before relying parties were recorded to the first one it is used with, and
 * answers the relying party it is bound to: of two concurrent first uses for different relying parties, the
 * one that records first wins.
 */
export async function bindRelyingParty(db: Queryable, id: string, rpIdHash: string): Promise<string | undefined> {
  const [bound] = await db.query<{ rp_id_hash: string }>(
    "UPDATE authenticators SET rp_id_hash = COALESCE(rp_id_hash, $1) WHERE id = $2 RETURNING rp_id_hash",
    [rpIdHash, id],
  );
  return bound?.rp_id_hash;
}

/** Compare-and-set of the signature counter: true when it rose to `counter`; of two requests carrying the same counter, one. */
export async function advanceSignCount(db: Queryable, id: string, counter: number): Promise<boolean> {
  const updated = await db.query("UPDATE authenticators SET sign_count = $1 WHERE id = $2 AND sign_count < $1 RETURNING id", [counter, id]);
  return updated.length > 0;
}

/** A stamp of the passkey was accepted: the auth proxy's account lookups by credential id may find it from now on. */
export async function markAuthenticatorProven(db: Queryable, id: string, now: Date): Promise<void> {
  await db.query("UPDATE authenticators SET proven_at = $2 WHERE id = $1 AND proven_at IS NULL", [id, now]);
}
