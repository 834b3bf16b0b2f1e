import { ApiError, unauthenticated } from "../errors.js";
import { requireOrganization, type OrganizationRow } from "../records/organization.js";
import type { Services } from "../services.js";
import type { Queryable } from "../store/database.js";
import { verifyP256Signature } from "./client-signature.js";
import { sameP256PublicKey } from "../crypto/public-keys.js";
import { loginNonce, proveOauthProvider, spendOidcToken, verifyOidcToken } from "./oidc.js";
import type { AttestedStamp } from "./stamp.js";
import type { Principal } from "./principal.js";
import { spendVerificationToken, verifyVerificationToken } from "./verification-token.js";

/**
 * An X-Stamp-Attested, for an operation that accepts it (`attestedStamps`: the services its tokens are
 * verified with; none refuses it): the user it logs in (authenticateAttested) must be of the named
 * organization, or, with `inSubOrganizations`, of one of its sub-organizations, where the request then acts.
 */
export async function authenticateAttestedStamp(
  db: Queryable,
  stamp: AttestedStamp,
  rawBody: Buffer,
  organizationId: string,
  now: Date,
  options: { attestedStamps?: Pick<Services, "signer" | "oauth">; inSubOrganizations: boolean; operation?: string },
): Promise<{ principal: Principal; organization: OrganizationRow }> {
  if (!options.attestedStamps) {
    throw unauthenticated(
      `an attested stamp (X-Stamp-Attested) is accepted for stamp_login and approve_activity only, not ${options.operation ?? "this request"}; sign with the session key`,
      "SIGNATURE_INVALID",
    );
  }
  const named = await requireOrganization(db, organizationId);
  const attested = await authenticateAttested(db, options.attestedStamps, stamp, rawBody, named, now);
  if (attested.organization.id !== named.id && !options.inSubOrganizations) {
    throw unauthenticated(
      `the attested stamp's user belongs to sub-organization ${attested.organization.id}; ${options.operation ?? "this request"} must name that organization`,
      "CREDENTIAL_NOT_FOUND",
    );
  }
  const principal: Principal = {
    user: attested.user,
    credential: {
      kind: "attested",
      id: attested.credentialId,
      type: attested.credentialType,
      publicKey: stamp.publicKey,
      ...(attested.createdAt ? { createdAt: attested.createdAt } : {}),
    },
    authenticationType: attested.authenticationType,
    viaParent: false,
    ...(attested.organization.id !== named.id ? { namedOrganizationId: named.id } : {}),
    stamp: { publicKey: stamp.publicKey, scheme: stamp.scheme, signature: stamp.signature },
  };
  return { principal, organization: attested.organization };
}

/** How an attested stamp authenticated its user, in the API's AuthenticationType terms. */
export type AttestedAuthentication = "AUTHENTICATION_TYPE_EMAIL_OTP" | "AUTHENTICATION_TYPE_SMS_OTP" | "AUTHENTICATION_TYPE_OAUTH";

export interface AttestedUser {
  user: { id: string; name: string; organizationId: string; isRoot: boolean };
  organization: OrganizationRow;
  /** The verification token's id, or the OAuth provider's id. */
  credentialId: string;
  /** CREDENTIAL_TYPE_OTP_AUTH_KEY_P256 or CREDENTIAL_TYPE_OAUTH_KEY_P256: the key the OTP or OAuth login bound. */
  credentialType: string;
  authenticationType: AttestedAuthentication;
  /** When the OAuth provider was registered (none for a verification token: each code is a fresh proof). */
  createdAt?: Date;
}

const FIELD = "X-Stamp-Attested publicKeyAttestation";

/** A refusal of the attestation is the request's authentication failing: 401, with the reason the check gave. */
async function asAuthentication<T>(check: Promise<T>): Promise<T> {
  try {
    return await check;
  } catch (error) {
    if (error instanceof ApiError && error.httpStatus === 400) throw unauthenticated(error.message, "ATTESTATION_INVALID");
    throw error;
  }
}

type UserRow = { id: string; name: string; organization_id: string; is_root: boolean };

const userOf = (row: UserRow) => ({ id: row.id, name: row.name, organizationId: row.organization_id, isRoot: row.is_root });

/**
 * Verifies an X-Stamp-Attested stamp for a request naming `named`, and finds the user it logs in:
 *
 * - the signature over the raw body by the stamp's publicKey (P-256);
 * - a verification token (…_VERIFICATION_TOKEN): issued by this server, unexpired, bound to that publicKey,
 *   for `named` or its parent (or, for a user found in a sub-organization, for that sub-organization's
 *   parent, `named`); its contact is a user's of `named` — one not set by the user on themselves — or else
 *   a verified contact of a user of a sub-organization of `named` (the oldest); the token logs in once;
 * - an OIDC token (…_OIDC): from this server or a configured issuer, unexpired, its nonce (or tknonce)
 *   hex(sha256(publicKey)); its iss/sub/aud an OAuth provider of a user of `named`, or else a proven one of a
 *   user of a sub-organization of `named` (the oldest); the token authenticates once (spendOidcToken), and its
 *   stamp, made by the key the nonce binds, proves the provider.
 *
 * These are otp_login's and oauth_login's checks and the auth proxy's lookups by proven identity. It runs
 * outside any transaction (an issuer's keys may be fetched); spending the token is one atomic insert.
 */
export async function authenticateAttested(
  db: Queryable,
  services: Pick<Services, "signer" | "oauth">,
  stamp: AttestedStamp,
  rawBody: Buffer,
  named: OrganizationRow,
  now: Date,
): Promise<AttestedUser> {
  if (!verifyP256Signature(stamp.publicKey, stamp.signature, rawBody)) {
    throw unauthenticated(
      `could not verify attested stamp signature: the P-256 signature does not match the request body for public key ${stamp.publicKey}`,
      "SIGNATURE_INVALID",
    );
  }
  return stamp.scheme === "STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN"
    ? byVerificationToken(db, services, stamp, named, now)
    : byOidcToken(db, services, stamp, named, now);
}

async function byVerificationToken(
  db: Queryable,
  services: Pick<Services, "signer">,
  stamp: AttestedStamp,
  named: OrganizationRow,
  now: Date,
): Promise<AttestedUser> {
  const claims = await asAuthentication(verifyVerificationToken(services.signer, stamp.publicKeyAttestation, { now, field: FIELD }));
  if (!claims.public_key || !sameP256PublicKey(claims.public_key, stamp.publicKey)) {
    throw unauthenticated(
      `${FIELD}: the verification token is bound to public key ${String(claims.public_key)}, not the stamp's ${stamp.publicKey}`,
      "ATTESTATION_INVALID",
    );
  }
  const issuer = claims.organization_id;
  if (!issuer || (issuer !== named.id && issuer !== named.parent_id)) {
    throw unauthenticated(
      `${FIELD}: the verification token was issued for organization ${String(issuer)}, which is neither ${named.id} nor its parent`,
      "ATTESTATION_INVALID",
    );
  }
  const byPhone = claims.verification_type !== "OTP_TYPE_EMAIL";
  const contact = byPhone
    ? {
        is: "u.phone_number = $1",
        verifiedAt: "u.phone_number_verified_at",
        selfAsserted: "u.phone_number_self_asserted",
        name: "phone number",
      }
    : { is: "lower(u.email) = lower($1)", verifiedAt: "u.email_verified_at", selfAsserted: "u.email_self_asserted", name: "email" };
  // In the named organization: as otp_login finds its user (a contact the user did not set on themselves).
  let [row] = await db.query<UserRow>(
    `SELECT u.id, u.name, u.organization_id, u.is_root FROM users u
      WHERE u.organization_id = $2 AND ${contact.is} AND NOT ${contact.selfAsserted}
      ORDER BY ${contact.verifiedAt} IS NULL, u.created_at, u.id LIMIT 1`,
    [claims.contact, named.id],
  );
  // In its sub-organizations (a token the named organization issued): only a contact a token proved.
  if (!row && issuer === named.id) {
    [row] = await db.query<UserRow>(
      `SELECT u.id, u.name, u.organization_id, u.is_root FROM users u JOIN organizations o ON o.id = u.organization_id
        WHERE ${contact.is} AND ${contact.verifiedAt} IS NOT NULL AND NOT ${contact.selfAsserted} AND o.parent_id = $2
        ORDER BY o.created_at, o.id, u.created_at LIMIT 1`,
      [claims.contact, named.id],
    );
  }
  if (!row) {
    throw unauthenticated(
      `no user of organization ${named.id} (or with a verified ${contact.name} in one of its sub-organizations) has the ${contact.name} ${claims.contact} the verification token proves`,
      "USER_NOT_FOUND",
    );
  }
  if (!(await spendVerificationToken(db, claims, "USAGE_TYPE_LOGIN", row.organization_id, now))) {
    throw unauthenticated(
      `${FIELD}: verification token ${claims.id} was already used; verify a new code to log in again`,
      "VERIFICATION_TOKEN_USED",
    );
  }
  // As otp_login: the token proved this user's contact.
  await db.query(
    `UPDATE users u SET ${contact.verifiedAt.slice(2)} = $2, ${contact.selfAsserted.slice(2)} = false WHERE u.id = $3 AND ${contact.is}`,
    [claims.contact, now, row.id],
  );
  return {
    user: userOf(row),
    organization: row.organization_id === named.id ? named : await requireOrganization(db, row.organization_id),
    credentialId: claims.id,
    credentialType: "CREDENTIAL_TYPE_OTP_AUTH_KEY_P256",
    authenticationType: byPhone ? "AUTHENTICATION_TYPE_SMS_OTP" : "AUTHENTICATION_TYPE_EMAIL_OTP",
  };
}

async function byOidcToken(
  db: Queryable,
  services: Pick<Services, "signer" | "oauth">,
  stamp: AttestedStamp,
  named: OrganizationRow,
  now: Date,
): Promise<AttestedUser> {
  const token = await asAuthentication(verifyOidcToken(services, stamp.publicKeyAttestation, now, FIELD));
  const expected = loginNonce(stamp.publicKey);
  if (token.nonce !== expected && token.tknonce !== expected) {
    throw unauthenticated(
      `${FIELD}: the OIDC token's nonce ${JSON.stringify(token.nonce ?? token.tknonce ?? null)} is not hex(sha256(publicKey)) = ${expected}`,
      "ATTESTATION_INVALID",
    );
  }
  type ProviderRow = UserRow & { provider_id: string; proven: boolean; provider_created_at: Date };
  const columns =
    "p.id AS provider_id, p.proven_at IS NOT NULL AS proven, p.created_at AS provider_created_at, u.id, u.name, u.organization_id, u.is_root";
  // In the named organization: as oauth_login finds its user (never by a claim a user made about themselves).
  let [row] = await db.query<ProviderRow>(
    `SELECT ${columns} FROM oauth_providers p JOIN users u ON u.id = p.user_id
      WHERE p.organization_id = $1 AND p.issuer = $2 AND p.subject = $3 AND p.audience = ANY($4::text[])
        AND (p.proven_at IS NOT NULL OR NOT p.self_asserted)
      ORDER BY p.created_at, p.id LIMIT 1`,
    [named.id, token.iss, token.sub, token.audiences],
  );
  // In its sub-organizations: only a provider a verified token proved before.
  if (!row) {
    [row] = await db.query<ProviderRow>(
      `SELECT ${columns} FROM oauth_providers p JOIN users u ON u.id = p.user_id JOIN organizations o ON o.id = p.organization_id
        WHERE p.issuer = $2 AND p.subject = $3 AND p.audience = ANY($4::text[]) AND p.proven_at IS NOT NULL AND o.parent_id = $1
        ORDER BY o.created_at, o.id, p.created_at LIMIT 1`,
      [named.id, token.iss, token.sub, token.audiences],
    );
  }
  if (!row) {
    throw unauthenticated(
      `no user of organization ${named.id} (or, proven, of one of its sub-organizations) has an OAuth provider with issuer ${JSON.stringify(token.iss)}, subject ${JSON.stringify(token.sub)} and audience ${token.audiences.map((a) => JSON.stringify(a)).join(" or ")}`,
      "OAUTH2_PROVIDER_NOT_FOUND",
    );
  }
  if (!(await spendOidcToken(db, token, "USAGE_TYPE_AUTHENTICATION", row.organization_id, now))) {
    throw unauthenticated(
      `${FIELD}: this OIDC token was already used (an OIDC token logs in, or approves, once); sign in with the provider again for a new token`,
      "OIDC_TOKEN_USED",
    );
  }
  // The stamp's signature shows that its holder holds the key the token's nonce binds: the identity is proven.
  if (!row.proven) await proveOauthProvider(db, row.provider_id, token.verifiedEmail, now);
  return {
    user: userOf(row),
    organization: row.organization_id === named.id ? named : await requireOrganization(db, row.organization_id),
    credentialId: row.provider_id,
    credentialType: "CREDENTIAL_TYPE_OAUTH_KEY_P256",
    authenticationType: "AUTHENTICATION_TYPE_OAUTH",
    createdAt: row.provider_created_at,
  };
}
