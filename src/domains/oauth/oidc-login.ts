import { loginNonce, spendOidcToken, verifyOidcToken, type VerifiedOidcToken } from "../../auth/oidc.js";
import { failedPrecondition, invalidArgument, notFound } from "../../errors.js";
import type { Services } from "../../services.js";
import type { Queryable } from "../../store/database.js";
import type { ActivityContext } from "../../operations/activity-definition.js";

/** A login token verified before the activity's transaction: the token, or what verifying it threw. */
export type PreparedOidcToken = { token: VerifiedOidcToken } | { error: unknown };

/**
 * Verifies a login token in the activity's `prepare` step: a configured issuer's discovery document and keys
 * may have to be fetched, and no network I/O may happen while the transaction holds the store. A refusal is
 * kept and thrown by the handler, at the point where it checked the token before.
 */
export async function prepareOidcToken(services: Services, oidcToken: string): Promise<PreparedOidcToken> {
  try {
    return { token: await verifyOidcToken(services, oidcToken, services.clock()) };
  } catch (error) {
    return { error };
  }
}

/** Whom an OIDC token logs in, and by which OAuth provider (unproven: the login key's first stamp proves it). */
export interface OidcLogin {
  userId: string;
  providerId: string;
  providerProven: boolean;
  /** The email the token vouches for, proven with the provider. */
  verifiedEmail?: string;
}

/**
 * The user an OIDC token logs in (oauth_login, oauth): the token verified (signature, iss, exp — see
 * prepareOidcToken), its nonce or tknonce is sha256 of the session key, its (iss, sub, aud) is an OAuth
 * provider of a user of the organization, and it has not logged in or approved anything before (it is spent
 * here, in the activity's transaction). The login proves nothing by itself: no signature by the session key
 * came with it, so the provider is proven only by that key's first accepted stamp (linkLoginKey).
 */
export async function loginOfOidcToken(
  ctx: Pick<ActivityContext, "tx" | "organization" | "now">,
  prepared: PreparedOidcToken,
  publicKey: string,
  keyField: string,
): Promise<OidcLogin> {
  if ("error" in prepared) throw prepared.error;
  const { token } = prepared;
  const expected = loginNonce(publicKey);
  if (token.nonce !== expected && token.tknonce !== expected) {
    const got = token.nonce ?? token.tknonce;
    const reason = `the token's nonce ${got === undefined ? "is missing" : JSON.stringify(got)}; it must be hex(sha256(${keyField})) = ${expected}`;
    throw invalidArgument(`oidcToken: ${reason}`, "INVALID_OIDC_TOKEN", [{ field: "oidcToken", description: reason }]);
  }
  const login = await findProvider(ctx.tx, ctx.organization.id, token.iss, token.sub, token.audiences);
  if (!(await spendOidcToken(ctx.tx, token, "USAGE_TYPE_AUTHENTICATION", ctx.organization.id, ctx.now))) {
    throw failedPrecondition(
      "oidcToken: this OIDC token was already used (an OIDC token logs in, or approves, once); sign in with the provider again for a new token",
      "OIDC_TOKEN_USED",
    );
  }
  return { ...login, ...(token.verifiedEmail ? { verifiedEmail: token.verifiedEmail } : {}) };
}

/** The login key an OIDC login registered proves its OAuth provider with its first accepted stamp (src/auth/authentication.ts). */
export async function linkLoginKey(tx: Queryable, login: OidcLogin, apiKey: { organizationId: string; publicKey: string }): Promise<void> {
  if (login.providerProven) return;
  await tx.query(
    "UPDATE api_keys SET proves_oauth_provider_id = $3, proves_verified_email = $4 WHERE organization_id = $1 AND public_key = lower($2)",
    [apiKey.organizationId, apiKey.publicKey, login.providerId, login.verifiedEmail ?? null],
  );
}

/** The user with a provider of this identity (never one a user registered on themselves from bare claims and nobody proved). */
async function findProvider(tx: Queryable, organizationId: string, iss: string, sub: string, audiences: string[]): Promise<OidcLogin> {
  const rows = await tx.query<{ id: string; user_id: string; audience: string; proven: boolean; self_asserted: boolean }>(
    `SELECT id, user_id, audience, proven_at IS NOT NULL AS proven, self_asserted
       FROM oauth_providers WHERE organization_id = $1 AND issuer = $2 AND subject = $3 ORDER BY created_at, id`,
    [organizationId, iss, sub],
  );
  const matches = rows.filter((row) => audiences.includes(row.audience));
  const match = matches.find((row) => row.proven || !row.self_asserted);
  if (match) return { userId: match.user_id, providerId: match.id, providerProven: match.proven };
  if (matches.length > 0) {
    throw notFound(
      `the OAuth provider with issuer ${JSON.stringify(iss)} and subject ${JSON.stringify(sub)} in organization ${organizationId} was registered by its user on themselves from bare claims and never proven, so it logs nobody in; register it with an oidcToken, or have another user register it`,
      "OAUTH2_PROVIDER_NOT_FOUND",
    );
  }
  const registered =
    rows.length > 0
      ? ` (that issuer and subject are registered only with audience ${rows.map((r) => JSON.stringify(r.audience)).join(", ")})`
      : "";
  throw notFound(
    `no user of organization ${organizationId} has an OAuth provider with issuer ${JSON.stringify(iss)}, subject ${JSON.stringify(sub)} and audience ${audiences.map((a) => JSON.stringify(a)).join(" or ")}${registered}`,
    "OAUTH2_PROVIDER_NOT_FOUND",
  );
}
