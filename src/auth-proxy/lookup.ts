import { decodeJwt } from "jose";
import { verifyVerificationToken } from "../auth/verification-token.js";
import { invalidArgument, notFound } from "../errors.js";
import { subOrganizationFilter, subOrganizationIds } from "../domains/organizations/sub-organization-ids.js";
import { verifyOidcToken } from "../auth/oidc.js";
import type { ProxyContext } from "./endpoint.js";

/**
 * The auth proxy finds a client's sub-organization only by what was proven, never by what someone merely
 * registered: anyone may sign up first with another person's contact, OIDC identity or public key, and
 * must not receive that person's logins. A contact counts once a verification token proved it, an OAuth
 * provider once a verified OIDC token for it came with a signature by the key the token's nonce binds (an
 * attested login, or the first stamp of the key an OIDC login registered), an unexpired API key or a passkey
 * once a stamp it made was accepted. Of several sub-organizations holding the same proven identity, the oldest is found.
 * USERNAME and NAME identify nothing and authenticate nobody; they match as list_suborgs does.
 */
const PROVEN_OAUTH_PROVIDER =
  "EXISTS (SELECT 1 FROM oauth_providers p WHERE p.organization_id = o.id AND p.proven_at IS NOT NULL AND p.issuer = $2 AND p.subject = $3 AND p.audience = ANY($4::text[]))";
const PROVEN: Record<string, string> = {
  EMAIL: "EXISTS (SELECT 1 FROM users u WHERE u.organization_id = o.id AND u.email_verified_at IS NOT NULL AND lower(u.email) = lower($2))",
  PHONE_NUMBER:
    "EXISTS (SELECT 1 FROM users u WHERE u.organization_id = o.id AND u.phone_number_verified_at IS NOT NULL AND u.phone_number = $2)",
  // An expired key authenticates nobody any more, so it points nobody anywhere either.
  PUBLIC_KEY:
    "EXISTS (SELECT 1 FROM api_keys k WHERE k.organization_id = o.id AND k.proven_at IS NOT NULL AND k.public_key = lower($2) AND (k.expires_at IS NULL OR k.expires_at > $3))",
  CREDENTIAL_ID:
    "EXISTS (SELECT 1 FROM authenticators a WHERE a.organization_id = o.id AND a.proven_at IS NOT NULL AND a.credential_id = $2)",
  OIDC_TOKEN: PROVEN_OAUTH_PROVIDER,
  OIDC_CLAIMS: PROVEN_OAUTH_PROVIDER,
};

/**
 * The parameters after the parent organization's id: an OIDC token is verified as a registration or login
 * verifies it (signature, issuer, expiry; its audiences are matched against the providers'), since a token
 * anyone can write would otherwise tell them where an identity's account is; a key is compared with now.
 */
async function lookupParams(ctx: ProxyContext, filterType: string, filterValue: string, field: string): Promise<unknown[]> {
  const now = ctx.services.clock();
  if (filterType === "OIDC_TOKEN") {
    const token = await verifyOidcToken(ctx.services, filterValue, now, field);
    return [token.iss, token.sub, token.audiences];
  }
  const params = subOrganizationFilter(filterType).params(filterValue);
  if (filterType === "OIDC_CLAIMS") return [params[0], params[1], [params[2]]];
  if (filterType === "PUBLIC_KEY") return [...params, now];
  return params;
}

/** The oldest sub-organization of the config's organization holding this proven identity (see PROVEN). */
export async function provenSuborg(
  ctx: ProxyContext,
  filterType: string,
  filterValue: string,
  field = "filterValue",
): Promise<string | undefined> {
  const condition = PROVEN[filterType] ?? subOrganizationFilter(filterType).condition;
  const [organizationId] = await subOrganizationIds(
    ctx.services.db,
    condition,
    [ctx.config.organization_id, ...(await lookupParams(ctx, filterType, filterValue, field))],
    { limit: "1" },
  );
  return organizationId;
}

/** otp_login without organizationId: the sub-organization whose user's contact the token names was proven by a token before. */
export async function suborgOfVerificationToken(ctx: ProxyContext, token: string): Promise<string> {
  let contact: unknown;
  try {
    contact = decodeJwt(token).contact;
  } catch {
    throw invalidArgument("verificationToken: not a JWT", [{ field: "verificationToken", description: "must be a verification token" }]);
  }
  const claims = await verifyVerificationToken(ctx.services.signer, token, {
    contact: String(contact),
    now: ctx.services.clock(),
    field: "verificationToken",
  });
  const byPhone = /SMS|WHATSAPP/.test(claims.verification_type);
  const organizationId = await provenSuborg(ctx, byPhone ? "PHONE_NUMBER" : "EMAIL", claims.contact);
  if (!organizationId) {
    throw notFound(
      `no sub-organization of organization ${ctx.config.organization_id} has a user whose ${byPhone ? "phone number" : "email"} ${claims.contact} was verified; sign up with this verification token`,
      "ORGANIZATION_NOT_FOUND",
    );
  }
  return organizationId;
}

/** oauth_login without organizationId: the sub-organization with a proven OAuth provider of the token's iss/sub/aud. */
export async function suborgOfOidcToken(ctx: ProxyContext, oidcToken: string): Promise<string> {
  const organizationId = await provenSuborg(ctx, "OIDC_TOKEN", oidcToken, "oidcToken");
  if (!organizationId) {
    throw notFound(
      `no sub-organization of organization ${ctx.config.organization_id} has an OAuth provider proven for the token's issuer, subject and audience; sign up with this token, or name the organization`,
      "ORGANIZATION_NOT_FOUND",
    );
  }
  return organizationId;
}
