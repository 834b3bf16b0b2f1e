import { issueSessionJwt } from "../../auth/session-jwt.js";
import { requireUser } from "../users/user-records.js";
import type { Queryable } from "../../store/database.js";
import type { ActivityContext } from "../activity-definition.js";
import { addApiKeys, checkPublicKey } from "../credentials/credentials.js";
import { boundedSeconds, SESSION_MAX_SECONDS } from "../credentials/lifetimes.js";
import type { OrganizationRow } from "../organizations/organizations.js";
import { checkLoginSessionProfile } from "../session-profiles/session-profiles.js";

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

/**
 * What every login activity (stamp, OTP, OAuth) ends with: the client's key registered as an expiring
 * CREDENTIAL_TYPE_LOGIN key of the user, and a session JWT naming it, signed by the server.
 */
export async function loginSession(
  ctx: Pick<ActivityContext, "tx" | "now" | "services" | "organization">,
  organizationId: string,
  userId: string,
  request: LoginRequest,
): Promise<{ session: string }> {
  const { tx, now, services } = ctx;
  // Under a session profile: its name is the session type, its scope binds the login key, and its lifetime is a ceiling.
  const profile = await checkLoginSessionProfile(tx, ctx.organization, request.sessionProfileId);
  const requested = sessionSeconds(request.expirationSeconds);
  const seconds = profile?.expiration_seconds ? Math.min(requested, Number(profile.expiration_seconds)) : requested;
  if (request.invalidateExisting) await invalidateSessionKeys(tx, userId, ["CREDENTIAL_TYPE_LOGIN"]);
  const [loginKeyId] = await addApiKeys(
    tx,
    { organizationId, userId, now },
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
  if (profile) await tx.query("UPDATE api_keys SET session_profile_id = $2 WHERE id = $1", [loginKeyId, profile.id]);
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
