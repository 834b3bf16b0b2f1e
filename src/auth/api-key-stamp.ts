import { notFound, unauthenticated } from "../errors.js";
import { markApiKeyProven } from "../records/api-key.js";
import type { AllowlistRow } from "../records/ip-allowlist.js";
import { requireOrganization, type OrganizationRow } from "../records/organization.js";
import { userRecordFromJson, userRecordJson } from "../records/user.js";
import type { Queryable } from "../store/database.js";
import { enforceIpAllowlist } from "./ip-allowlist.js";
import { scopeDescription, type AuthenticationType, type Principal } from "./principal.js";
import { API_KEY_SCHEMES, verifyApiKeySignature, type ApiKeyStamp } from "./stamp.js";
import { apiKeyInSubOrganization } from "./sub-organization-credentials.js";
import { anySubscriberSql } from "../records/webhook-subscribers.js";

const CURVE_OF_KEY: Record<string, string> = {
  API_KEY_CURVE_P256: "p256",
  API_KEY_CURVE_SECP256K1: "secp256k1",
  API_KEY_CURVE_ED25519: "ed25519",
};

/** Session keys (stamp_login's, and read-write sessions') authenticate as a session; other API keys as API keys. */
const SESSION_KEY_TYPES = new Set(["CREDENTIAL_TYPE_LOGIN", "CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256"]);
const apiKeyAuthentication = (credentialType: string): AuthenticationType =>
  SESSION_KEY_TYPES.has(credentialType) ? "AUTHENTICATION_TYPE_SESSION" : "AUTHENTICATION_TYPE_API_KEY";

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
  /** With the snapshot: what the user's record is made of (`userRecordJson`). */
  stamp_user_record?: Record<string, unknown>;
  stamp_user_organization_has_velocity_controls?: boolean;
  stamp_activity_updates_subscribed?: boolean;
};

/**
 * What a submission's authentication reads besides: the user's record, whether the user's organization has velocity
 * controls, and whether the organization acted in has subscribers to its activities' updates.
 */
const SUBMISSION_COLUMNS = `k.user_record AS stamp_user_record,
       EXISTS (SELECT 1 FROM velocity_controls vc WHERE vc.organization_id = k.organization_id) AS stamp_user_organization_has_velocity_controls,
       ${anySubscriberSql("o.id", "'ACTIVITY_UPDATES'")} AS stamp_activity_updates_subscribed,`;

/**
 * Everything an API-key stamp needs from the store in ONE statement (one round trip, always fresh, so
 * nothing to invalidate across processes): the organization, the key with its user — a key present in
 * both the organization and its parent resolves to the organization's own user — and the
 * organization's IP allowlists for that key, and whether the key is its enabled auth proxy's (exempt from them).
 * For an activity, the same statement also reads the user's full record, which its vote records, whether the user's
 * organization has velocity controls, which its decision would otherwise read in the activity's transaction, and whether
 * anyone subscribes to the activity's updates.
 */
const apiKeyPrincipalSql = (withSnapshot: boolean) => `
SELECT o.*,${withSnapshot ? ` ${SUBMISSION_COLUMNS}` : ""}
       k.id AS stamp_key_id, k.organization_id AS stamp_key_organization_id, k.user_id AS stamp_key_user_id,
       k.curve AS stamp_key_curve, k.credential_type AS stamp_key_credential_type, k.public_key AS stamp_key_public_key,
       k.expires_at AS stamp_key_expires_at, k.created_at AS stamp_key_created_at, k.user_name AS stamp_user_name, k.is_root AS stamp_user_is_root, k.proven_at IS NOT NULL AS stamp_key_proven,
       k.session_profile_id AS stamp_session_profile_id, k.profile_name AS stamp_session_profile_name, k.profile_scope AS stamp_session_profile_scope,
       COALESCE((SELECT json_agg(json_build_object('public_key', l.public_key, 'enabled', l.enabled, 'on_evaluation_error', l.on_evaluation_error, 'rules', l.rules))
                   FROM ip_allowlists l WHERE l.organization_id = o.id AND l.public_key IN ('', $2)), '[]'::json) AS stamp_ip_allowlists,
       EXISTS (SELECT 1 FROM auth_proxy_configs p WHERE p.organization_id = o.id AND p.public_key = $2 AND p.enabled) AS stamp_key_is_auth_proxy
  FROM organizations o
  LEFT JOIN LATERAL (
    SELECT k.*, u.name AS user_name, u.is_root,${withSnapshot ? ` ${userRecordJson("u")} AS user_record,` : ""}
           sp.name AS profile_name, sp.scope AS profile_scope
      FROM api_keys k JOIN users u ON u.id = k.user_id LEFT JOIN session_profiles sp ON sp.id = k.session_profile_id
     WHERE k.public_key = $2 AND k.organization_id IN (o.id, COALESCE(o.parent_id, o.id))
     ORDER BY (k.organization_id = o.id) DESC LIMIT 1
  ) k ON true
 WHERE o.id = $1`;

const API_KEY_PRINCIPAL_SQL = apiKeyPrincipalSql(false);
const API_KEY_VOTER_SQL = apiKeyPrincipalSql(true);

/**
 * An X-Stamp (API key or session key, on P-256, secp256k1 or Ed25519): the signature over the exact body
 * bytes is verified before the store is read, so unsigned callers learn nothing; then the key is found in the
 * organization or its parent (or, with `inSubOrganizations`, in one of its sub-organizations, where the request
 * then acts), its curve must fit the stamp's scheme and it must not have expired; a top-level organization's
 * IP allowlists apply to it.
 */
export async function authenticateApiKey(
  db: Queryable,
  stamp: ApiKeyStamp,
  rawBody: Buffer,
  organizationId: string,
  now: Date,
  clientIp: string | undefined,
  withSnapshot: boolean,
  inSubOrganizations: boolean,
): Promise<{ principal: Principal; organization: OrganizationRow }> {
  if (!verifyApiKeySignature(stamp, rawBody)) {
    throw unauthenticated(
      `could not verify api key signature: the ${stamp.scheme} signature does not match the request body for public key ${stamp.publicKey}`,
      "SIGNATURE_INVALID",
    );
  }
  const [row] = await db.query<OrganizationRow & StampKeyColumns>(withSnapshot ? API_KEY_VOTER_SQL : API_KEY_PRINCIPAL_SQL, [
    organizationId,
    stamp.publicKey,
  ]);
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
    stamp_user_record: userRecord,
    stamp_user_organization_has_velocity_controls: organizationHasVelocityControls,
    stamp_activity_updates_subscribed: activityUpdatesSubscribed,
    ...organization
  } = row;
  if (!keyId) {
    const holder = inSubOrganizations ? await apiKeyInSubOrganization(db, stamp.publicKey, organization) : undefined;
    if (!holder)
      throw unauthenticated(`could not find public key ${stamp.publicKey} in ${scopeDescription(organization)}`, "PUBLIC_KEY_NOT_FOUND");
    // A sub-organization's key: the request acts in that sub-organization, which has no IP allowlists of its own.
    checkApiKey(stamp, { id: holder.id, curve: holder.curve, expiresAt: holder.expires_at }, now);
    if (!holder.proven) await markApiKeyProven(db, holder.id, now);
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
  if (userRecord) {
    principal.snapshot = userRecordFromJson(userRecord, now);
    principal.organizationHasVelocityControls = organizationHasVelocityControls;
    principal.activityUpdatesSubscribed = activityUpdatesSubscribed;
  }
  enforceIpAllowlist(allowlists, principal, organization, clientIp, isAuthProxyKey);
  if (!proven) await markApiKeyProven(db, keyId, now);
  return { principal, organization };
}

/** The stamp's scheme fits the key's curve, and the key has not expired. */
function checkApiKey(stamp: ApiKeyStamp, key: { id: string; curve: string; expiresAt: Date | null }, now: Date): void {
  if (CURVE_OF_KEY[key.curve] !== API_KEY_SCHEMES[stamp.scheme]) {
    throw unauthenticated(`stamp scheme ${stamp.scheme} does not fit API key ${key.id}, whose curve is ${key.curve}`, "SIGNATURE_INVALID");
  }
  if (key.expiresAt && key.expiresAt.getTime() <= now.getTime()) {
    throw unauthenticated(`API key ${key.id} expired at ${key.expiresAt.toISOString()}`, "API_KEY_EXPIRED");
  }
}
