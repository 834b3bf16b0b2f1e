import { decodeJwt } from "jose";
import { verifyVerificationToken } from "../auth/verification-token.js";
import { invalidArgument, notFound } from "../errors.js";
import { queryAsProxy } from "./act.js";
import type { ProxyContext } from "./endpoint.js";

async function firstSuborg(ctx: ProxyContext, filterType: string, filterValue: string): Promise<string | undefined> {
  const { organizationIds } = (await queryAsProxy(ctx, "list_suborgs", {
    organizationId: ctx.config.organization_id,
    filterType,
    filterValue,
    paginationOptions: { limit: "1" },
  })) as { organizationIds: string[] };
  return organizationIds[0];
}

/** otp_login without organizationId: the sub-organization whose user has the (verified) token's contact. */
export async function suborgOfVerificationToken(ctx: ProxyContext, token: string): Promise<string> {
  let contact: unknown;
  try {
    contact = decodeJwt(token).contact;
  } catch {
    throw invalidArgument("verificationToken: not a JWT", "REQUEST_INVALID", [{ field: "verificationToken", description: "must be a verification token" }]);
  }
  const claims = await verifyVerificationToken(ctx.services.signer, token, { contact: String(contact), now: ctx.services.clock(), field: "verificationToken" });
  const byPhone = /SMS|WHATSAPP/.test(claims.verification_type);
  const organizationId = await firstSuborg(ctx, byPhone ? "PHONE_NUMBER" : "EMAIL", claims.contact);
  if (!organizationId) throw notFound(`no sub-organization of organization ${ctx.config.organization_id} has a user with ${byPhone ? "phone number" : "email"} ${claims.contact}`, "ORGANIZATION_NOT_FOUND");
  return organizationId;
}

/** oauth_login without organizationId: the sub-organization with an OAuth provider of the token's iss/sub/aud. */
export async function suborgOfOidcToken(ctx: ProxyContext, oidcToken: string): Promise<string> {
  const organizationId = await firstSuborg(ctx, "OIDC_TOKEN", oidcToken);
  if (!organizationId) {
    const claims = decodeJwt(oidcToken);
    throw notFound(
      `no sub-organization of organization ${ctx.config.organization_id} has an OAuth provider with issuer ${String(claims.iss)}, subject ${String(claims.sub)} and audience ${String(claims.aud)}`,
      "ORGANIZATION_NOT_FOUND",
    );
  }
  return organizationId;
}
