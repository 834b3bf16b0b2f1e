import { decodeJwt } from "jose";
import { verifyVerificationToken } from "../auth/verification-token.js";
import { invalidArgument, notFound } from "../errors.js";
import { subOrganizationFilter, subOrganizationIds } from "../domains/organizations/sub-organization-ids.js";
import type { ProxyContext } from "./endpoint.js";

/**
 * The auth proxy finds a client's sub-organization only by what was proven, never by what someone merely
 * registered: anyone may sign up first with another person's contact, OIDC identity or public key, and
 * must not receive that person's logins. A contact counts once a verification token proved it, an OAuth
 * provider once a verified OIDC token for it was seen, an API key or passkey once a stamp it made was
 * accepted. Of several sub-organizations holding the same proven identity, the oldest is found.
 * USERNAME and NAME identify nothing and authenticate nobody; they match as list_suborgs does.
 */
const PROVEN_OAUTH_PROVIDER =
  "EXISTS (SELECT 1 FROM oauth_providers p WHERE p.organization_id = o.id AND p.proven_at IS NOT NULL AND p.issuer = $2 AND p.subject = $3 AND p.audience = $4)";
const PROVEN: Record<string, string> = {
  EMAIL: "EXISTS (SELECT 1 FROM users u WHERE u.organization_id = o.id AND u.email_verified_at IS NOT NULL AND lower(u.email) = lower($2))",
  PHONE_NUMBER:
    "EXISTS (SELECT 1 FROM users u WHERE u.organization_id = o.id AND u.phone_number_verified_at IS NOT NULL AND u.phone_number = $2)",
  PUBLIC_KEY: "EXISTS (SELECT 1 FROM api_keys k WHERE k.organization_id = o.id AND k.proven_at IS NOT NULL AND k.public_key = lower($2))",
  CREDENTIAL_ID:
    "EXISTS (SELECT 1 FROM authenticators a WHERE a.organization_id = o.id AND a.proven_at IS NOT NULL AND a.credential_id = $2)",
  OIDC_TOKEN: PROVEN_OAUTH_PROVIDER,
  OIDC_CLAIMS: PROVEN_OAUTH_PROVIDER,
};

/** The oldest sub-organization of the config's organization holding this proven identity (see PROVEN). */
export async function provenSuborg(ctx: ProxyContext, filterType: string, filterValue: string): Promise<string | undefined> {
  const filter = subOrganizationFilter(filterType);
  const condition = PROVEN[filterType] ?? filter.condition;
  const [organizationId] = await subOrganizationIds(
    ctx.services.db,
    condition,
    [ctx.config.organization_id, ...filter.params(filterValue)],
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
  const organizationId = await provenSuborg(ctx, "OIDC_TOKEN", oidcToken);
  if (!organizationId) {
    const claims = decodeJwt(oidcToken);
    throw notFound(
      `no sub-organization of organization ${ctx.config.organization_id} has an OAuth provider proven by a verified token with issuer ${String(claims.iss)}, subject ${String(claims.sub)} and audience ${String(claims.aud)}`,
      "ORGANIZATION_NOT_FOUND",
    );
  }
  return organizationId;
}
