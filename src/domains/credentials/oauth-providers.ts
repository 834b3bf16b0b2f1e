import { decodeJwt } from "jose";
import { randomUUID } from "node:crypto";
import { spendOidcToken, verifyOidcToken, type VerifiedOidcToken } from "../../auth/oidc.js";
import { alreadyExists, failedPrecondition, invalidArgument, resourceExhausted } from "../../errors.js";
import type { Services } from "../../services.js";
import type { Queryable } from "../../store/database.js";
import { refuseUnscopable, type CredentialOwner, type VerifiedTokens } from "./owner.js";
import { LIMITS, type OauthProviderInput } from "./params.js";

/**
 * Verifies the OIDC tokens of OAuth provider registrations, in an activity's `prepare` step: an OIDC_ISSUERS
 * issuer's discovery document and keys may have to be fetched, which must not happen inside the transaction.
 * A token that does not verify is left out (its provider is registered unproven).
 */
export async function verifyRegistrationTokens(
  services: Pick<Services, "signer" | "oauth" | "clock">,
  providers: OauthProviderInput[],
): Promise<VerifiedTokens> {
  const verified = new Map<string, VerifiedOidcToken>();
  for (const { oidcToken } of providers) {
    if (!oidcToken || verified.has(oidcToken)) continue;
    const token = await verifyOidcToken(services, oidcToken, services.clock()).catch(() => undefined);
    if (token) verified.set(oidcToken, token);
  }
  return verified;
}

/**
 * The registration's OIDC token, when it verifies (Strongroom's or an OIDC_ISSUERS issuer's: signature, iss,
 * exp) and names that iss, sub and aud. Bare oidcClaims, and tokens that do not verify, still register the
 * provider (as the API allows) but unproven: the auth proxy's lookups across sub-organizations do not find it
 * until a login by the key a token's nonce binds proves it.
 */
function oidcTokenProves(
  owner: CredentialOwner,
  oidcToken: string | undefined,
  identity: { iss: string; sub: string; aud: string },
): VerifiedOidcToken | undefined {
  const token = oidcToken === undefined ? undefined : owner.verifiedTokens?.get(oidcToken);
  return token && token.iss === identity.iss && token.sub === identity.sub && token.audiences.includes(identity.aud) ? token : undefined;
}

/** The (iss, sub, aud) identity of an OAuth provider entry: from explicit claims or the token's. */
export function oidcIdentity(input: OauthProviderInput, at: string): { iss: string; sub: string; aud: string } {
  if (input.oidcClaims) return input.oidcClaims;
  if (!input.oidcToken) {
    throw invalidArgument(`${at}: either oidcToken or oidcClaims is required`, "INVALID_OIDC_TOKEN", [
      { field: at, description: "either oidcToken or oidcClaims is required" },
    ]);
  }
  let claims: ReturnType<typeof decodeJwt>;
  try {
    claims = decodeJwt(input.oidcToken);
  } catch (error) {
    throw invalidArgument(`${at}.oidcToken: not a decodable JWT: ${(error as Error).message}`, "INVALID_OIDC_TOKEN", [
      { field: `${at}.oidcToken`, description: "must be a JWT" },
    ]);
  }
  const aud = Array.isArray(claims.aud) ? claims.aud[0] : claims.aud;
  if (!claims.iss || !claims.sub || !aud) {
    throw invalidArgument(`${at}.oidcToken: the token lacks an iss, sub or aud claim`, "INVALID_OIDC_TOKEN", [
      { field: `${at}.oidcToken`, description: "must carry iss, sub and aud claims" },
    ]);
  }
  return { iss: claims.iss, sub: claims.sub, aud };
}

/**
 * Links OAuth/OIDC identities to a user; an identity already linked in the organization is refused.
 * Answers the providers' ids and the emails their verified tokens vouch for (see oidcTokenProves).
 */
export async function addOauthProviders(
  tx: Queryable,
  owner: CredentialOwner,
  providers: OauthProviderInput[],
  field: string,
): Promise<{ ids: string[]; verifiedEmails: string[] }> {
  if (providers.length === 0) return { ids: [], verifiedEmails: [] };
  refuseUnscopable(owner, "OAuth providers");
  await tx.query("SELECT id FROM users WHERE id = $1 FOR UPDATE", [owner.userId]);
  const [{ count } = { count: 0 }] = await tx.query<{ count: number }>(
    "SELECT count(*)::int AS count FROM oauth_providers WHERE user_id = $1",
    [owner.userId],
  );
  if (count + providers.length > LIMITS.oauthProvidersPerUser) {
    throw resourceExhausted(
      `user ${owner.userId} would have ${count + providers.length} OAuth providers; the maximum is ${LIMITS.oauthProvidersPerUser}`,
      "REQUEST_INVALID",
    );
  }
  const ids: string[] = [];
  const verifiedEmails: string[] = [];
  for (const [index, input] of providers.entries()) {
    const at = `${field}[${index}]`;
    const identity = oidcIdentity(input, at);
    const verified = oidcTokenProves(owner, input.oidcToken, identity);
    if (verified && !(await spendOidcToken(tx, verified, "USAGE_TYPE_REGISTRATION", owner.organizationId, owner.now))) {
      throw failedPrecondition(
        `${at}.oidcToken: this OIDC token was already used (an OIDC token registers a provider, or logs in, once); sign in with the provider again for a new token`,
        "OIDC_TOKEN_USED",
      );
    }
    const proven = owner.registrationProves === true ? verified : undefined;
    const [existing] = await tx.query<{ id: string; user_id: string; unproven_claim: boolean }>(
      `SELECT id, user_id, self_asserted AND proven_at IS NULL AS unproven_claim
         FROM oauth_providers WHERE organization_id = $1 AND issuer = $2 AND subject = $3 AND audience = $4`,
      [owner.organizationId, identity.iss, identity.sub, identity.aud],
    );
    if (existing?.unproven_claim && (verified || !owner.bySelf)) {
      // Someone's unproven word about themselves gives way to a proof, or to another user's registration.
      await tx.query("DELETE FROM oauth_providers WHERE id = $1", [existing.id]);
    } else if (existing) {
      throw alreadyExists(
        `${at}: an OAuth provider with issuer ${identity.iss}, subject ${identity.sub} and audience ${identity.aud} already exists in organization ${owner.organizationId} (provider ${existing.id} of user ${existing.user_id})`,
        "OAUTH_PROVIDER_ALREADY_EXISTS",
      );
    }
    const id = randomUUID();
    if (proven?.verifiedEmail) verifiedEmails.push(proven.verifiedEmail);
    await tx.query(
      `INSERT INTO oauth_providers (id, organization_id, user_id, name, issuer, audience, subject, created_at, updated_at, proven_at, self_asserted)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9, $10)`,
      [
        id,
        owner.organizationId,
        owner.userId,
        input.providerName,
        identity.iss,
        identity.aud,
        identity.sub,
        owner.now,
        proven ? owner.now : null,
        owner.bySelf === true && !verified,
      ],
    );
    ids.push(id);
  }
  return { ids, verifiedEmails };
}
