import type { ServerKey } from "../crypto/server-keys.js";
import { notFound, permissionDenied, unauthenticated } from "../errors.js";
import { enforceIpAllowlist, type AllowlistRow } from "./ip-allowlist.js";
import { requireOrganization, type OrganizationRow } from "../records/organization.js";
import { userRecordsColumns, userRecordsFrom, type UserRecordsJson } from "../records/user.js";
import type { AuthenticatorRow } from "../records/authenticator.js";
import type { Queryable } from "../store/database.js";
import type { Services } from "../services.js";
import { authenticateAttested } from "./attested-stamp.js";
import { API_KEY_SCHEMES, parseStamp, verifyApiKeySignature, type Stamp } from "./stamp.js";
import { apiKeyInSubOrganization, authenticatorInSubOrganization } from "./sub-organization-credentials.js";
import { verifyWebAuthnStamp } from "./webauthn.js";
import { scopeDescription, type AuthenticationType, type Principal } from "./principal.js";
import { authenticateReadOnlySession } from "./read-only-session.js";

const CURVE_OF_KEY: Record<string, string> = {
  API_KEY_CURVE_P256: "p256",
  API_KEY_CURVE_SECP256K1: "secp256k1",
  API_KEY_CURVE_ED25519: "ed25519",
};

/** Session keys (stamp_login's, and read-write sessions') authenticate as a session; other API keys as API keys. */
const SESSION_KEY_TYPES = new Set(["CREDENTIAL_TYPE_LOGIN", "CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256"]);
const apiKeyAuthentication = (credentialType: string): AuthenticationType =>
  SESSION_KEY_TYPES.has(credentialType) ? "AUTHENTICATION_TYPE_SESSION" : "AUTHENTICATION_TYPE_API_KEY";

type UserColumns = { user_name: string; is_root: boolean };

type StampKeyColumns = {
  stamp_key_id: string | null;
  stamp_key_organization_id: string;
  stamp_key_user_id: string;
  stamp_key_curve: string;
  stamp_key_credential_type: string;
  stamp_key_public_key: string;
  stamp_key_expires_at: Date | null;
  stamp_key_created_at: Date;
  stamp_user_name: string;
  stamp_user_is_root: boolean;
  stamp_ip_allowlists: AllowlistRow[];
  stamp_key_is_auth_proxy: boolean;
  stamp_key_proven: boolean;
  stamp_session_profile_id: string | null;
  stamp_session_profile_name: string | null;
  stamp_session_profile_scope: string | null;
};

/**
 * Everything an API-key stamp needs from the store in ONE statement (one round trip, always fresh, so
 * nothing to invalidate across processes): the organization, the key with its user — a key present in
 * both the organization and its parent resolves to the organization's own user — and the
 * organization's IP allowlists for that key, and whether the key is its enabled auth proxy's (exempt from them).
 * For an activity, the same statement also reads the user's full record, which its vote records.
 */
const apiKeyPrincipalSql = (withSnapshot: boolean) => `
SELECT o.*,${withSnapshot ? ` ${userRecordsColumns("k.organization_id", "$3", (column) => `${column} = k.user_id`)},` : ""}
       k.id AS stamp_key_id, k.organization_id AS stamp_key_organization_id, k.user_id AS stamp_key_user_id,
       k.curve AS stamp_key_curve, k.credential_type AS stamp_key_credential_type, k.public_key AS stamp_key_public_key,
       k.expires_at AS stamp_key_expires_at, k.created_at AS stamp_key_created_at, k.user_name AS stamp_user_name, k.is_root AS stamp_user_is_root, k.proven_at IS NOT NULL AS stamp_key_proven,
       k.session_profile_id AS stamp_session_profile_id, k.profile_name AS stamp_session_profile_name, k.profile_scope AS stamp_session_profile_scope,
       COALESCE((SELECT json_agg(json_build_object('public_key', l.public_key, 'enabled', l.enabled, 'on_evaluation_error', l.on_evaluation_error, 'rules', l.rules))
                   FROM ip_allowlists l WHERE l.organization_id = o.id AND l.public_key IN ('', $2)), '[]'::json) AS stamp_ip_allowlists,
       EXISTS (SELECT 1 FROM auth_proxy_configs p WHERE p.organization_id = o.id AND p.public_key = $2 AND p.enabled) AS stamp_key_is_auth_proxy
  FROM organizations o
  LEFT JOIN LATERAL (
    SELECT k.*, u.name AS user_name, u.is_root, sp.name AS profile_name, sp.scope AS profile_scope
      FROM api_keys k JOIN users u ON u.id = k.user_id LEFT JOIN session_profiles sp ON sp.id = k.session_profile_id
     WHERE k.public_key = $2 AND k.organization_id IN (o.id, COALESCE(o.parent_id, o.id))
     ORDER BY (k.organization_id = o.id) DESC LIMIT 1
  ) k ON true
 WHERE o.id = $1`;

const API_KEY_PRINCIPAL_SQL = apiKeyPrincipalSql(false);
const API_KEY_VOTER_SQL = apiKeyPrincipalSql(true);

async function authenticateApiKey(
  db: Queryable,
  stamp: Extract<Stamp, { kind: "api-key" }>,
  organizationId: string,
  now: Date,
  clientIp: string | undefined,
  withSnapshot: boolean,
  inSubOrganizations: boolean,
): Promise<{ principal: Principal; organization: OrganizationRow }> {
  const [row] = await db.query<OrganizationRow & StampKeyColumns & Partial<UserRecordsJson>>(
    withSnapshot ? API_KEY_VOTER_SQL : API_KEY_PRINCIPAL_SQL,
    withSnapshot ? [organizationId, stamp.publicKey, now] : [organizationId, stamp.publicKey],
  );
  if (!row) throw notFound(`no organization found with id ${JSON.stringify(organizationId)}`, "ORGANIZATION_NOT_FOUND");
  const {
    stamp_key_id: keyId,
    stamp_key_organization_id: keyOrganizationId,
    stamp_key_user_id: userId,
    stamp_key_curve: curve,
    stamp_key_credential_type: credentialType,
    stamp_key_public_key: publicKey,
    stamp_key_expires_at: expiresAt,
    stamp_key_created_at: keyCreatedAt,
    stamp_user_name: userName,
    stamp_user_is_root: isRoot,
    stamp_ip_allowlists: allowlists,
    stamp_key_is_auth_proxy: isAuthProxyKey,
    stamp_key_proven: proven,
    stamp_session_profile_id: sessionProfileId,
    stamp_session_profile_name: sessionProfileName,
    stamp_session_profile_scope: sessionProfileScope,
    user_rows: userRows,
    owned_rows: ownedRows,
    ...organization
  } = row;
  if (!keyId) {
    const holder = inSubOrganizations ? await apiKeyInSubOrganization(db, stamp.publicKey, organization) : undefined;
    if (!holder)
      throw unauthenticated(`could not find public key ${stamp.publicKey} in ${scopeDescription(organization)}`, "PUBLIC_KEY_NOT_FOUND");
    // A sub-organization's key: the request acts in that sub-organization, which has no IP allowlists of its own.
    checkApiKey(stamp, { id: holder.id, curve: holder.curve, expiresAt: holder.expires_at }, now);
    if (!holder.proven) await markProven(db, "api_keys", holder.id, now);
    const principal: Principal = {
      user: { id: holder.user_id, name: holder.user_name, organizationId: holder.organization_id, isRoot: holder.is_root },
      credential: {
        kind: "api-key",
        id: holder.id,
        type: holder.credential_type,
        publicKey: holder.public_key,
        createdAt: holder.created_at,
      },
      authenticationType: apiKeyAuthentication(holder.credential_type),
      viaParent: false,
      namedOrganizationId: organization.id,
      stamp: { publicKey: stamp.publicKey, scheme: stamp.scheme, signature: stamp.signature },
    };
    return { principal, organization: await requireOrganization(db, holder.organization_id) };
  }
  checkApiKey(stamp, { id: keyId, curve, expiresAt }, now);
  const principal: Principal = {
    user: { id: userId, name: userName, organizationId: keyOrganizationId, isRoot },
    credential: { kind: "api-key", id: keyId, type: credentialType, publicKey, createdAt: keyCreatedAt },
    authenticationType: apiKeyAuthentication(credentialType),
    viaParent: keyOrganizationId !== organization.id,
    stamp: { publicKey: stamp.publicKey, scheme: stamp.scheme, signature: stamp.signature },
  };
  if (sessionProfileId) principal.sessionProfile = { id: sessionProfileId, name: sessionProfileName!, scope: sessionProfileScope! };
  if (withSnapshot) principal.snapshot = userRecordsFrom({ user_rows: userRows ?? null, owned_rows: ownedRows ?? null })[0];
  enforceIpAllowlist(allowlists, principal, organization, clientIp, isAuthProxyKey);
  if (!proven) await markProven(db, "api_keys", keyId, now);
  return { principal, organization };
}

/** The stamp's scheme fits the key's curve, and the key has not expired. */
function checkApiKey(
  stamp: Extract<Stamp, { kind: "api-key" }>,
  key: { id: string; curve: string; expiresAt: Date | null },
  now: Date,
): void {
  if (CURVE_OF_KEY[key.curve] !== API_KEY_SCHEMES[stamp.scheme]) {
    throw unauthenticated(`stamp scheme ${stamp.scheme} does not fit API key ${key.id}, whose curve is ${key.curve}`, "SIGNATURE_INVALID");
  }
  if (key.expiresAt && key.expiresAt.getTime() <= now.getTime()) {
    throw unauthenticated(`API key ${key.id} expired at ${key.expiresAt.toISOString()}`, "API_KEY_EXPIRED");
  }
}

/**
 * A stamp the credential made was accepted: it is proven to be held by its owner, and the auth proxy's
 * account lookups by public key or credential id may find it from now on (registering someone else's
 * public key proves nothing). Once per credential. A session key that an OIDC token logged in (oauth_login,
 * oauth: the token's nonce binds this key) proves that token's OAuth provider with it, and the email the token
 * vouched for when it is the user's (as proveOauthProvider does for an attested stamp).
 */
async function markProven(db: Queryable, table: "api_keys" | "authenticators", id: string, now: Date): Promise<void> {
  if (table === "authenticators") {
    await db.query("UPDATE authenticators SET proven_at = $2 WHERE id = $1 AND proven_at IS NULL", [id, now]);
    return;
  }
  await db.query(
    `WITH key AS (UPDATE api_keys SET proven_at = $2 WHERE id = $1 AND proven_at IS NULL RETURNING proves_oauth_provider_id, proves_verified_email),
          provider AS (UPDATE oauth_providers SET proven_at = $2 WHERE id = (SELECT proves_oauth_provider_id FROM key) AND proven_at IS NULL RETURNING user_id)
     UPDATE users SET email_verified_at = $2, email_self_asserted = false
      WHERE id = (SELECT user_id FROM provider) AND email_verified_at IS NULL AND lower(email) = lower((SELECT proves_verified_email FROM key))`,
    [id, now],
  );
}

async function authenticateWebAuthn(
  db: Queryable,
  stamp: Extract<Stamp, { kind: "webauthn" }>,
  rawBody: Buffer,
  org: OrganizationRow,
  now: Date,
  inSubOrganizations: boolean,
): Promise<{ principal: Principal; organization: OrganizationRow }> {
  const rows = await db.query<AuthenticatorRow & UserColumns>(
    `SELECT a.*, u.name AS user_name, u.is_root FROM authenticators a JOIN users u ON u.id = a.user_id
      WHERE a.credential_id = $1 AND a.organization_id IN ($2, $3)
      ORDER BY (a.organization_id = $2) DESC LIMIT 1`,
    [stamp.credentialId, org.id, org.parent_id ?? org.id],
  );
  const verify = (authenticator: AuthenticatorRow) =>
    verifyWebAuthnStamp(stamp, rawBody, {
      credentialId: authenticator.credential_id,
      publicKey: authenticator.public_key,
      signCount: Number(authenticator.sign_count),
      rpIdHash: authenticator.rp_id_hash,
    });
  let authenticator: (AuthenticatorRow & UserColumns) | undefined = rows[0];
  let verified: Awaited<ReturnType<typeof verify>> | undefined;
  if (!authenticator && inSubOrganizations) {
    // Several sub-organizations may hold this credential id: the one whose key made the assertion is the signer.
    const results = new Map<string, Awaited<ReturnType<typeof verify>>>();
    authenticator = await authenticatorInSubOrganization(db, stamp.credentialId, org, async (holder) => {
      try {
        results.set(holder.id, await verify(holder));
        return true;
      } catch {
        return false;
      }
    });
    if (authenticator) verified = results.get(authenticator.id);
  }
  if (!authenticator) {
    throw unauthenticated(`credential ID ${stamp.credentialId} could not be found in ${scopeDescription(org)}`, "CREDENTIAL_NOT_FOUND");
  }
  const stored = Number(authenticator.sign_count);
  const { newCounter, rpIdHash } = verified ?? (await verify(authenticator));
  if (authenticator.rp_id_hash === null) {
    // Registered before relying parties were recorded: bound to the first one it is used with. Of two
    // concurrent first uses for different relying parties, the one that records first wins.
    const [bound] = await db.query<{ rp_id_hash: string }>(
      "UPDATE authenticators SET rp_id_hash = COALESCE(rp_id_hash, $1) WHERE id = $2 RETURNING rp_id_hash",
      [rpIdHash, authenticator.id],
    );
    if (bound && bound.rp_id_hash !== rpIdHash) {
      throw unauthenticated(
        `could not verify WebAuthn signature: the assertion is for another relying party than the one credential ${authenticator.credential_id} is bound to`,
        "SIGNATURE_INVALID",
      );
    }
  }
  // Compare-and-set: of two requests carrying the same counter, only one gets through.
  if (newCounter > 0 || stored > 0) {
    const updated = await db.query("UPDATE authenticators SET sign_count = $1 WHERE id = $2 AND sign_count < $1 RETURNING id", [
      newCounter,
      authenticator.id,
    ]);
    if (updated.length === 0) {
      throw unauthenticated(
        `WebAuthn signature counter ${newCounter} of authenticator ${authenticator.id} did not increase: replayed or cloned authenticator`,
        "SIGNATURE_INVALID",
      );
    }
  }
  if (!authenticator.proven_at) await markProven(db, "authenticators", authenticator.id, now);
  const inSubOrganization = authenticator.organization_id !== org.id && authenticator.organization_id !== org.parent_id;
  const principal: Principal = {
    user: {
      id: authenticator.user_id,
      name: authenticator.user_name,
      organizationId: authenticator.organization_id,
      isRoot: authenticator.is_root,
    },
    credential: {
      kind: "webauthn",
      id: authenticator.id,
      type: "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR",
      publicKey: authenticator.public_key,
      credentialId: authenticator.credential_id,
      createdAt: authenticator.created_at,
    },
    authenticationType: "AUTHENTICATION_TYPE_PASSKEY",
    viaParent: !inSubOrganization && authenticator.organization_id !== org.id,
    ...(inSubOrganization ? { namedOrganizationId: org.id } : {}),
    stamp: { publicKey: authenticator.public_key, scheme: "SIGNATURE_SCHEME_TK_API_WEBAUTHN", signature: stamp.signature },
  };
  return { principal, organization: inSubOrganization ? await requireOrganization(db, authenticator.organization_id) : org };
}

/**
 * Establishes who signed a request to an organization: parses the stamp, verifies an API-key
 * signature over the exact body bytes (before touching the database, so unsigned callers learn
 * nothing), then finds the credential in the organization or, read-only, in its parent — or, for the
 * operations that allow it (`subOrganizationCredentials`), in one of its sub-organizations, where the
 * request then acts. The organization answered is the one the request acts in.
 */
export async function authenticate(
  db: Queryable,
  headers: Record<string, string | string[] | undefined>,
  rawBody: Buffer,
  organizationId: string,
  now: Date,
  options: {
    /** For queries: the signer key read-only session tokens (X-Session) are verified with. */
    readOnlySessions?: ServerKey;
    /** The client's address (the socket's, or X-Forwarded-For through TRUST_PROXY), for IP allowlists. */
    clientIp?: string;
    /** For activities: read the user's full record too (`principal.snapshot`), in the same statement where it can. */
    withSnapshot?: boolean;
    /** A credential of a sub-organization of the named organization may sign (the definition's `subOrganizationCredentials`). */
    subOrganizationCredentials?: boolean;
    /** X-Stamp-Attested is accepted (the definition's `attestedStamp`), its tokens verified with these services. */
    attestedStamps?: Pick<Services, "signer" | "oauth">;
    /** The operation, for the refusal of a stamp it does not accept. */
    operation?: string;
  } = {},
): Promise<{ principal: Principal; organization: OrganizationRow }> {
  const { readOnlySessions } = options;
  const session = headers["x-session"];
  if (
    typeof session === "string" &&
    headers["x-stamp"] === undefined &&
    headers["x-stamp-webauthn"] === undefined &&
    headers["x-stamp-attested"] === undefined
  ) {
    if (!readOnlySessions) {
      throw permissionDenied(
        "a read-only session (X-Session) can only read; submitting an activity needs a stamp (X-Stamp or X-Stamp-WebAuthn)",
        "READ_ONLY_SESSION",
      );
    }
    const organization = await requireOrganization(db, organizationId);
    return { principal: await authenticateReadOnlySession(db, readOnlySessions, session, organization, now), organization };
  }
  const stamp = parseStamp(headers);
  if (stamp.kind === "api-key" && !verifyApiKeySignature(stamp, rawBody)) {
    throw unauthenticated(
      `could not verify api key signature: the ${stamp.scheme} signature does not match the request body for public key ${stamp.publicKey}`,
      "SIGNATURE_INVALID",
    );
  }
  const inSubOrganizations = options.subOrganizationCredentials === true;
  if (stamp.kind === "api-key")
    return authenticateApiKey(db, stamp, organizationId, now, options.clientIp, options.withSnapshot === true, inSubOrganizations);
  if (stamp.kind === "attested") {
    if (!options.attestedStamps) {
      throw unauthenticated(
        `an attested stamp (X-Stamp-Attested) is accepted for stamp_login and approve_activity only, not ${options.operation ?? "this request"}; sign with the session key`,
        "SIGNATURE_INVALID",
      );
    }
    const named = await requireOrganization(db, organizationId);
    const attested = await authenticateAttested(db, options.attestedStamps, stamp, rawBody, named, now);
    if (attested.organization.id !== named.id && !inSubOrganizations) {
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
  // Passkey requests are never subject to IP allowlists (only API keys are).
  const organization = await requireOrganization(db, organizationId);
  return authenticateWebAuthn(db, stamp, rawBody, organization, now, inSubOrganizations);
}
