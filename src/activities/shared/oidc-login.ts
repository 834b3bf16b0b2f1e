import { loginNonce, verifyOidcToken } from "../../auth/oidc.js";
import { invalidArgument, notFound } from "../../errors.js";
import type { Queryable } from "../../store/database.js";
import type { ActivityContext } from "../definition.js";

/**
 * The user an OIDC token logs in (oauth_login, oauth): the token verifies (signature, iss, exp), its
 * nonce or tknonce is sha256 of the session key, and its (iss, sub, aud) is an OAuth provider of a user
 * of the organization.
 */
export async function userOfOidcToken(ctx: Pick<ActivityContext, "tx" | "now" | "services" | "organization">, oidcToken: string, publicKey: string, keyField: string): Promise<string> {
  const token = await verifyOidcToken(ctx.services, oidcToken, ctx.now);
  const expected = loginNonce(publicKey);
  if (token.nonce !== expected && token.tknonce !== expected) {
    const got = token.nonce ?? token.tknonce;
    const reason = `the token's nonce ${got === undefined ? "is missing" : JSON.stringify(got)}; it must be hex(sha256(${keyField})) = ${expected}`;
    throw invalidArgument(`oidcToken: ${reason}`, "INVALID_OIDC_TOKEN", [{ field: "oidcToken", description: reason }]);
  }
  return findProviderUser(ctx.tx, ctx.organization.id, token.iss, token.sub, token.audiences, ctx.now);
}

/** The user with a provider of this identity; a verified token for it proves the provider (the auth proxy's lookups then find it). */
async function findProviderUser(tx: Queryable, organizationId: string, iss: string, sub: string, audiences: string[], now: Date): Promise<string> {
  const rows = await tx.query<{ id: string; user_id: string; audience: string; proven: boolean }>(
    "SELECT id, user_id, audience, proven_at IS NOT NULL AS proven FROM oauth_providers WHERE organization_id = $1 AND issuer = $2 AND subject = $3 ORDER BY created_at, id",
    [organizationId, iss, sub],
  );
  const match = rows.find((row) => audiences.includes(row.audience));
  if (match) {
    if (!match.proven) await tx.query("UPDATE oauth_providers SET proven_at = $2 WHERE id = $1", [match.id, now]);
    return match.user_id;
  }
  const registered = rows.length > 0 ? ` (that issuer and subject are registered only with audience ${rows.map((r) => JSON.stringify(r.audience)).join(", ")})` : "";
  throw notFound(
    `no user of organization ${organizationId} has an OAuth provider with issuer ${JSON.stringify(iss)}, subject ${JSON.stringify(sub)} and audience ${audiences.map((a) => JSON.stringify(a)).join(" or ")}${registered}`,
    "OAUTH2_PROVIDER_NOT_FOUND",
  );
}
