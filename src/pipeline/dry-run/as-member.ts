import type { Principal } from "../../auth/principal.js";
import { invalidField } from "../../errors.js";
import { requireUser } from "../../records/user.js";
import type { Queryable } from "../../store/database.js";
import type { Caller } from "../steps/authenticate.js";

interface MemberCredential {
  kind: "api-key" | "webauthn";
  id: string;
  type: string;
  public_key: string;
  credential_id: string | null;
  created_at: Date;
}

/**
 * The caller a dry run "as user X" asks for: X (a member of the organization being asked about) signing with their
 * oldest live API key, or else their oldest passkey, or else a session key — what a policy's `credentials` would see. Nothing is
 * signed: the dry run only reads, and every member may already read the users, their credentials and the
 * policies it weighs. A user with no credential could not submit anything, so asking for one is refused.
 */
export async function callerAsMember(db: Queryable, caller: Caller, userId: string): Promise<Caller> {
  const user = await requireUser(db, caller.organization.id, userId, "asUserId");
  const [credential] = await db.query<MemberCredential>(
    `SELECT * FROM (
       SELECT 'api-key' AS kind, id, credential_type AS type, public_key, NULL AS credential_id, created_at,
              CASE WHEN credential_type IN ('CREDENTIAL_TYPE_LOGIN', 'CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256') THEN 2 ELSE 0 END AS rank
         FROM api_keys WHERE user_id = $1 AND organization_id = $2 AND (expires_at IS NULL OR expires_at > $3)
       UNION ALL
       SELECT 'webauthn', id, 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR', public_key, credential_id, created_at, 1
         FROM authenticators WHERE user_id = $1 AND organization_id = $2
     ) c ORDER BY rank, created_at, id LIMIT 1`,
    [user.id, caller.organization.id, caller.now],
  );
  if (!credential) throw invalidField("asUserId", `user ${user.id} (${user.name}) has no API key or passkey to submit anything with`);
  const principal: Principal = {
    user: { id: user.id, name: user.name, organizationId: user.organization_id, isRoot: user.is_root },
    credential: {
      kind: credential.kind,
      id: credential.id,
      type: credential.type,
      publicKey: credential.public_key,
      ...(credential.credential_id ? { credentialId: credential.credential_id } : {}),
      createdAt: credential.created_at,
    },
    authenticationType:
      credential.kind === "webauthn"
        ? "AUTHENTICATION_TYPE_PASSKEY"
        : credential.type.includes("SESSION") || credential.type === "CREDENTIAL_TYPE_LOGIN"
          ? "AUTHENTICATION_TYPE_SESSION"
          : "AUTHENTICATION_TYPE_API_KEY",
    viaParent: false,
    stamp: {
      publicKey: credential.public_key,
      scheme: credential.kind === "webauthn" ? "SIGNATURE_SCHEME_TK_API_WEBAUTHN" : "SIGNATURE_SCHEME_TK_API_P256",
      signature: "",
    },
  };
  return { ...caller, principal };
}
