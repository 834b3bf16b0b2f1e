import type { ServerKey } from "../crypto/server-keys.js";
import { unauthenticated } from "../errors.js";
import type { OrganizationRow } from "../records/organization.js";
import type { Queryable } from "../store/database.js";
import { scopeDescription, type Principal } from "./principal.js";
import { SessionJwtError, verifySessionJwt } from "./session-jwt.js";

/** A read-only session token (X-Session): a JWT Strongroom signed, for a user of the organization or its parent. */
export async function authenticateReadOnlySession(
  db: Queryable,
  signer: ServerKey,
  token: string,
  org: OrganizationRow,
  now: Date,
): Promise<Principal> {
  let claims;
  try {
    claims = verifySessionJwt(signer, token, now);
  } catch (error) {
    if (error instanceof SessionJwtError)
      throw unauthenticated(`X-Session is not a valid read-only session: ${error.message}`, "SESSION_INVALID");
    throw error;
  }
  if (claims.session_type !== "SESSION_TYPE_READ_ONLY")
    throw unauthenticated("X-Session holds a read-write session token; only read-only sessions are accepted there", "SESSION_INVALID");
  if (claims.organization_id !== org.id && claims.organization_id !== org.parent_id) {
    throw unauthenticated(
      `the read-only session belongs to organization ${claims.organization_id}, not ${scopeDescription(org)}`,
      "SESSION_INVALID",
    );
  }
  const [user] = await db.query<{ id: string; name: string; organization_id: string; is_root: boolean }>(
    "SELECT id, name, organization_id, is_root FROM users WHERE id = $1 AND organization_id = $2",
    [claims.user_id, claims.organization_id],
  );
  if (!user) throw unauthenticated(`the read-only session's user ${claims.user_id} no longer exists`, "SESSION_INVALID");
  return {
    user: { id: user.id, name: user.name, organizationId: user.organization_id, isRoot: user.is_root },
    credential: { kind: "read-only-session", id: claims.user_id, type: "READ_ONLY_SESSION", publicKey: "" },
    authenticationType: "AUTHENTICATION_TYPE_SESSION",
    viaParent: user.organization_id !== org.id,
    stamp: { publicKey: "", scheme: "", signature: "" },
  };
}
