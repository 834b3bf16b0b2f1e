import { issueSessionJwt } from "../../auth/session-jwt.js";
import { requireUser } from "../../records/user.js";
import type { Queryable } from "../../store/database.js";
import type { ActivityContext } from "../../operations/activity-definition.js";
import { addApiKeys, checkPublicKey } from "../credentials/credentials.js";
import { boundedSeconds, SESSION_MAX_SECONDS } from "../credentials/lifetimes.js";
import type { OrganizationRow } from "../../records/organization.js";
import { checkLoginSessionProfile, requireSessionProfile, type SessionProfileRow } from "../session-profiles/session-profiles.js";
import { permissionDenied } from "../../errors.js";

/** Documented default lifetime of sessions and their keys: 15 minutes. */
export const DEFAULT_SESSION_SECONDS = 900;

export function sessionSeconds(value: string | undefined, field = "expirationSeconds"): number {
  return value === undefined ? DEFAULT_SESSION_SECONDS : boundedSeconds(value, field, SESSION_MAX_SECONDS);
}

/** The user a session is for (default: the requester), with their name for the result. */
export async function sessionUser(tx: Queryable, organizationId: string, userId: string) {
  return requireUser(tx, organizationId, userId);
}

/** invalidateExisting: the user's other session keys of this kind go away. */
export async function invalidateSessionKeys(tx: Queryable, userId: string, credentialTypes: string[]): Promise<void> {
  await tx.query("DELETE FROM api_keys WHERE user_id = $1 AND credential_type = ANY($2::text[])", [userId, credentialTypes]);
}

export interface LoginRequest {
  /** The client's session public key (compressed P-256 hex): it becomes an expiring login key. */
  publicKey: string;
  expirationSeconds?: string;
  invalidateExisting?: boolean;
  sessionProfileId?: string;
}

/** A login request's input checks (for `validate`): the session's lifetime and the client's P-256 public key. */
export function checkLoginRequest(request: LoginRequest): void {
  sessionSeconds(request.expirationSeconds);
  checkPublicKey("API_KEY_CURVE_P256", request.publicKey, "publicKey");
}

/** A login's session profile, for `validate`: one the organization sees (its own or its parent's), else 400. */
export async function checkLoginProfile(db: Queryable, organization: OrganizationRow, request: LoginRequest): Promise<void> {
  await checkLoginSessionProfile(db, organization, request.sessionProfileId);
}

/** The refusal of a login that names another profile than the one of the credential asking for it. */
export const otherProfile = (inherited: string, named: string) =>
  permissionDenied(
    `sessionProfileId: the request is signed by a credential issued under session profile ${inherited}, and what it creates carries that profile; it cannot log in under profile ${named}`,
    "CREDENTIAL_NOT_ALLOWED",
  );

/**
 * The profile a credential asked for by a scoped credential carries: the asking credential's own (a session or
 * key made by a scoped credential is bound by the same scope). None when the asking credential has none.
 */
export async function inheritedProfile(
  db: Queryable,
  organization: Pick<OrganizationRow, "id" | "parent_id">,
  sessionProfileId: string | undefined,
): Promise<SessionProfileRow | undefined> {
  return sessionProfileId === undefined ? undefined : requireSessionProfile(db, organization, sessionProfileId);
}

/**
 * What every login activity (stamp, OTP, OAuth) ends with: the client's key registered as an expiring
 * CREDENTIAL_TYPE_LOGIN key of the user, and a session JWT naming it, signed by the server.
 */
export async function loginSession(
  ctx: Pick<ActivityContext, "tx" | "now" | "services" | "organization" | "requesterSessionProfileId">,
  organizationId: string,
  userId: string,
  request: LoginRequest,
): Promise<{ session: string }> {
  const { tx, now, services } = ctx;
  // Under a session profile: its name is the session type, its scope binds the login key, and its lifetime is a
  // ceiling. A login asked for by a credential under a profile is under that profile (see inheritedProfile).
  const inherited = ctx.requesterSessionProfileId;
  if (inherited !== undefined && request.sessionProfileId && request.sessionProfileId !== inherited)
    throw otherProfile(inherited, request.sessionProfileId);
  const profile = await checkLoginSessionProfile(tx, ctx.organization, inherited ?? request.sessionProfileId);
  const requested = sessionSeconds(request.expirationSeconds);
  const seconds = profile?.expiration_seconds ? Math.min(requested, Number(profile.expiration_seconds)) : requested;
  if (request.invalidateExisting) await invalidateSessionKeys(tx, userId, ["CREDENTIAL_TYPE_LOGIN"]);
  await addApiKeys(
    tx,
    { organizationId, userId, now, sessionProfileId: profile?.id },
    [
      {
        apiKeyName: `Login - ${now.toISOString()}`,
        publicKey: request.publicKey,
        curveType: "API_KEY_CURVE_P256",
        expirationSeconds: String(seconds),
        credentialType: "CREDENTIAL_TYPE_LOGIN",
      },
    ],
    "publicKey",
  );
  const session = issueSessionJwt(services.signer, {
    session_type: profile ? profile.name : "SESSION_TYPE_READ_WRITE",
    user_id: userId,
    organization_id: organizationId,
    public_key: request.publicKey.toLowerCase(),
    exp: Math.floor(now.getTime() / 1000) + seconds,
    ...(profile ? { session_profile_id: profile.id, scope: profile.scope } : {}),
  });
  return { session };
}
