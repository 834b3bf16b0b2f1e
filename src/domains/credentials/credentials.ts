import { randomUUID } from "node:crypto";
import { verifyAttestation } from "../../auth/webauthn.js";
import { isValidPublicKey, type KeyCurve } from "../../crypto/public-keys.js";
import { alreadyExists, invalidArgument, resourceExhausted } from "../../errors.js";
import type { API_KEY_CURVES } from "../../schema/common.js";
import { LIMITS, type ApiKeyInput, type AuthenticatorInput, type OauthProviderInput } from "./params.js";
import type { Queryable } from "../../store/database.js";
import { API_KEY_MAX_SECONDS, boundedSeconds } from "./lifetimes.js";
import { oidcIdentity } from "./oauth-providers.js";
import { refuseUnscopable, type CredentialOwner } from "./owner.js";

const CURVES: Record<(typeof API_KEY_CURVES)[number], { curve: KeyCurve; credentialType: string; form: string }> = {
  API_KEY_CURVE_P256: {
    curve: "p256",
    credentialType: "CREDENTIAL_TYPE_API_KEY_P256",
    form: "a compressed P-256 public key (66 hex characters, 02/03 prefix)",
  },
  API_KEY_CURVE_SECP256K1: {
    curve: "secp256k1",
    credentialType: "CREDENTIAL_TYPE_API_KEY_SECP256K1",
    form: "a compressed secp256k1 public key (66 hex characters, 02/03 prefix)",
  },
  API_KEY_CURVE_ED25519: {
    curve: "ed25519",
    credentialType: "CREDENTIAL_TYPE_API_KEY_ED25519",
    form: "an Ed25519 public key (64 hex characters)",
  },
};

function keyShapeIsValid(curve: KeyCurve, publicKey: string): boolean {
  const shape = curve === "ed25519" ? /^[0-9a-f]{64}$/ : /^0[23][0-9a-f]{64}$/;
  return shape.test(publicKey) && isValidPublicKey(curve, publicKey);
}

/** A public key of the API key curve's shape (lowercase hex), else a 400 naming the field. */
export function checkPublicKey(curveType: ApiKeyInput["curveType"], publicKey: string, field: string): string {
  const spec = CURVES[curveType];
  const lower = publicKey.toLowerCase();
  if (!keyShapeIsValid(spec.curve, lower)) {
    throw invalidArgument(`${field}: ${JSON.stringify(publicKey)} is not ${spec.form}`, [{ field, description: `must be ${spec.form}` }]);
  }
  return lower;
}

/** An API key's own checks (for `validate`): the key's shape on its curve, and its lifetime. */
export function checkApiKey(
  key: ApiKeyInput,
  at: string,
): { spec: (typeof CURVES)[keyof typeof CURVES]; publicKey: string; seconds?: number } {
  const spec = CURVES[key.curveType];
  const publicKey = checkPublicKey(key.curveType, key.publicKey, `${at}.publicKey`);
  const seconds =
    key.expirationSeconds === undefined ? undefined : boundedSeconds(key.expirationSeconds, `${at}.expirationSeconds`, API_KEY_MAX_SECONDS);
  return { spec, publicKey, seconds };
}

/**
 * The input checks of a user's new credentials, for `validate`: API key shapes and lifetimes, passkey
 * attestations (verified against their challenge), OAuth providers' identities. Only uniqueness and the
 * per-user limits, which depend on what the activity changes, are left to execution.
 */
export async function checkNewCredentials(
  credentials: { apiKeys?: ApiKeyInput[]; authenticators?: AuthenticatorInput[]; oauthProviders?: OauthProviderInput[] },
  fields: { apiKeys: string; authenticators: string; oauthProviders: string },
): Promise<void> {
  for (const [index, key] of (credentials.apiKeys ?? []).entries()) checkApiKey(key, `${fields.apiKeys}[${index}]`);
  for (const [index, input] of (credentials.authenticators ?? []).entries()) {
    const at = `${fields.authenticators}[${index}]`;
    await verifyAttestation(input.attestation, input.challenge, `${at}.attestation`);
  }
  for (const [index, input] of (credentials.oauthProviders ?? []).entries()) oidcIdentity(input, `${fields.oauthProviders}[${index}]`);
}

export interface NewApiKey extends ApiKeyInput {
  /** Overrides the curve's API-key credential type (e.g. read-write session keys). */
  credentialType?: string;
}

/**
 * Registers API keys for a user, enforcing key shape, uniqueness in the organization, and the
 * per-user limits: at most 10 long-lived keys (more is refused) and 10 expiring keys (a new
 * one beyond that replaces an expired key first, else the oldest). The keys are checked one by one, in
 * order, against what the user and the organization hold (read once); then the replaced keys are deleted
 * and the new ones inserted in one statement each, however many there are.
 */
export async function addApiKeys(tx: Queryable, owner: CredentialOwner, apiKeys: NewApiKey[], field: string): Promise<string[]> {
  if (apiKeys.length === 0) return [];
  // Serialize concurrent changes to one user's keys, so the limits hold across processes. The lock and the reads it
  // guards leave together, each run after the one before (Queryable): one round trip.
  const [, registered, held] = await Promise.all([
    tx.query("SELECT id FROM users WHERE id = $1 FOR UPDATE", [owner.userId]),
    tx.query<{ id: string; public_key: string }>(
      "SELECT id, public_key FROM api_keys WHERE organization_id = $1 AND public_key = ANY($2::text[])",
      [owner.organizationId, apiKeys.map((key) => key.publicKey.toLowerCase())],
    ),
    tx.query<{ id: string; expires_at: Date | null }>("SELECT id, expires_at FROM api_keys WHERE user_id = $1 ORDER BY seq", [
      owner.userId,
    ]),
  ]);
  const idOfPublicKey = new Map(registered.map((row) => [row.public_key, row.id]));
  const longLived = held.filter((key) => key.expires_at === null).length;
  const expiring = held.filter((key) => key.expires_at !== null);
  const ids: string[] = [];
  const rows: ApiKeyRow[] = [];
  const replaced: string[] = [];
  let longLivedCount = longLived;
  for (const [index, key] of apiKeys.entries()) {
    const at = `${field}[${index}]`;
    // Checked again here: sessions and logins register keys through this function too.
    const { spec, publicKey, seconds } = checkApiKey(key, at);
    const expiresAt = seconds === undefined ? null : new Date(owner.now.getTime() + seconds * 1000);
    const existing = idOfPublicKey.get(publicKey);
    if (existing) {
      throw alreadyExists(
        `${at}.publicKey: public key ${publicKey} is already registered in organization ${owner.organizationId} (API key ${existing})`,
      );
    }
    if (expiresAt === null && longLivedCount >= LIMITS.longLivedApiKeysPerUser) {
      throw resourceExhausted(
        `user ${owner.userId} already has the maximum of ${LIMITS.longLivedApiKeysPerUser} long-lived API keys; delete one first`,
        "REQUEST_INVALID",
      );
    }
    const id = randomUUID();
    if (expiresAt !== null && expiring.length >= LIMITS.expiringApiKeysPerUser) {
      const victim = expiring.find((k) => k.expires_at !== null && k.expires_at.getTime() <= owner.now.getTime()) ?? expiring[0]!;
      expiring.splice(expiring.indexOf(victim), 1);
      // A key of this same request that is replaced is never inserted (before, it was inserted and deleted again).
      const pending = rows.findIndex((row) => row.id === victim.id);
      if (pending >= 0) rows.splice(pending, 1);
      else replaced.push(victim.id);
    }
    if (expiresAt === null) longLivedCount++;
    else expiring.push({ id, expires_at: expiresAt });
    idOfPublicKey.set(publicKey, id);
    ids.push(id);
    rows.push({
      id,
      name: key.apiKeyName,
      publicKey,
      curve: key.curveType,
      credentialType: key.credentialType ?? spec.credentialType,
      expirationSeconds: key.expirationSeconds ?? null,
      expiresAt,
    });
  }
  if (replaced.length > 0) await tx.query("DELETE FROM api_keys WHERE id = ANY($1::text[])", [replaced]);
  await tx.query(
    `INSERT INTO api_keys (id, organization_id, user_id, name, public_key, curve, credential_type, expiration_seconds, expires_at, created_at, updated_at, session_profile_id)
     SELECT k.id, $1::text, $2::text, k.name, k.public_key, k.curve, k.credential_type, k.expiration_seconds, k.expires_at, $3::timestamptz, $3::timestamptz, $4::text
       FROM unnest($5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::timestamptz[])
            WITH ORDINALITY AS k(id, name, public_key, curve, credential_type, expiration_seconds, expires_at, position)
      ORDER BY k.position`,
    [
      owner.organizationId,
      owner.userId,
      owner.now,
      owner.sessionProfileId ?? null,
      rows.map((row) => row.id),
      rows.map((row) => row.name),
      rows.map((row) => row.publicKey),
      rows.map((row) => row.curve),
      rows.map((row) => row.credentialType),
      rows.map((row) => row.expirationSeconds),
      rows.map((row) => row.expiresAt?.toISOString() ?? null),
    ],
  );
  return ids;
}

interface ApiKeyRow {
  id: string;
  name: string;
  publicKey: string;
  curve: string;
  credentialType: string;
  expirationSeconds: string | null;
  expiresAt: Date | null;
}

/** Registers passkeys after verifying each attestation; at most 10 per user. */
export async function addAuthenticators(
  tx: Queryable,
  owner: CredentialOwner,
  authenticators: AuthenticatorInput[],
  field: string,
): Promise<string[]> {
  if (authenticators.length === 0) return [];
  refuseUnscopable(owner, "passkeys");
  await tx.query("SELECT id FROM users WHERE id = $1 FOR UPDATE", [owner.userId]);
  const [{ count } = { count: 0 }] = await tx.query<{ count: number }>(
    "SELECT count(*)::int AS count FROM authenticators WHERE user_id = $1",
    [owner.userId],
  );
  if (count + authenticators.length > LIMITS.authenticatorsPerUser) {
    throw resourceExhausted(
      `user ${owner.userId} would have ${count + authenticators.length} authenticators; the maximum is ${LIMITS.authenticatorsPerUser}`,
      "REQUEST_INVALID",
    );
  }
  const ids: string[] = [];
  for (const [index, input] of authenticators.entries()) {
    const at = `${field}[${index}]`;
    const registered = await verifyAttestation(input.attestation, input.challenge, `${at}.attestation`);
    const [existing] = await tx.query<{ id: string }>("SELECT id FROM authenticators WHERE organization_id = $1 AND credential_id = $2", [
      owner.organizationId,
      registered.credentialId,
    ]);
    if (existing) {
      throw alreadyExists(
        `${at}: credential ${registered.credentialId} is already registered in organization ${owner.organizationId} (authenticator ${existing.id})`,
      );
    }
    const id = randomUUID();
    await tx.query(
      `INSERT INTO authenticators (id, organization_id, user_id, name, credential_id, public_key, aaguid, attestation_type, transports, model, sign_count, created_at, updated_at, rp_id_hash)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, $12, $12, $13)`,
      [
        id,
        owner.organizationId,
        owner.userId,
        input.authenticatorName,
        registered.credentialId,
        registered.publicKey,
        registered.aaguid,
        registered.attestationType,
        JSON.stringify(input.attestation.transports),
        input.authenticatorName,
        registered.signCount,
        owner.now,
        registered.rpIdHash,
      ],
    );
    ids.push(id);
  }
  return ids;
}
