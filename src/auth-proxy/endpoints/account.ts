import { Type } from "@sinclair/typebox";
import { verifyVerificationToken } from "../../auth/verification-token.js";
import { decodeJwt } from "jose";
import { verifyOidcToken } from "../../auth/oidc.js";
import { invalidArgument, permissionDenied } from "../../errors.js";
import { StringEnum } from "../../schema/common.js";
import { defineEndpoint, type ProxyContext } from "../endpoint.js";
import { provenSuborg } from "../lookup.js";

const FILTER_TYPES = ["EMAIL", "PHONE_NUMBER", "OIDC_TOKEN", "OIDC_CLAIMS", "PUBLIC_KEY", "CREDENTIAL_ID", "USERNAME", "NAME"] as const;
const PII_FILTERS = new Set(["EMAIL", "PHONE_NUMBER"]);

/** An OIDC token proves the contact when it verifies (Strongroom's or an OIDC_ISSUERS issuer's) and its verified email / phone_number claim is that contact. */
async function checkOidcContact(ctx: ProxyContext, oidcToken: string, filterType: string, contact: string, now: Date): Promise<void> {
  await verifyOidcToken(ctx.services, oidcToken, now, "oidcToken");
  const claims = decodeJwt(oidcToken); // verified just above
  const [claim, verified] = filterType === "EMAIL" ? ["email", "email_verified"] : ["phone_number", "phone_number_verified"];
  const value = claims[claim];
  if (typeof value !== "string" || value.toLowerCase() !== contact.toLowerCase() || claims[verified] === false) {
    throw invalidArgument(`oidcToken: its verified ${claim} claim is not ${JSON.stringify(contact)}`, "INVALID_OIDC_TOKEN", [
      { field: "oidcToken", description: `must carry ${claim} ${contact}` },
    ]);
  }
}

export const account = defineEndpoint({
  path: "/v1/account",
  summary:
    "The oldest sub-organization of the config's organization with a proven contact, OIDC identity, API key or passkey matching the filter, or {} when none has",
  body: Type.Object({
    filterType: StringEnum(FILTER_TYPES),
    filterValue: Type.String({ minLength: 1, maxLength: 16384 }),
    verificationToken: Type.Optional(Type.String({ minLength: 1 })),
    oidcToken: Type.Optional(Type.String({ minLength: 1 })),
  }),
  async handle(ctx, body) {
    // Looking up an account by email or phone reveals whether that person has signed up: with
    // verificationTokenRequiredForGetAccountPii, only someone who proved control of the contact may ask.
    if (PII_FILTERS.has(body.filterType) && ctx.settings.verificationTokenRequiredForGetAccountPii) {
      const now = ctx.services.clock();
      if (body.verificationToken) {
        await verifyVerificationToken(ctx.services.signer, body.verificationToken, {
          contact: body.filterValue,
          now,
          field: "verificationToken",
        });
      } else if (body.oidcToken) {
        await checkOidcContact(ctx, body.oidcToken, body.filterType, body.filterValue, now);
      } else {
        throw permissionDenied(
          `auth proxy config ${ctx.config.id} requires a verificationToken (or an oidcToken naming that contact) for ${body.filterType} lookups (verificationTokenRequiredForGetAccountPii)`,
          "VERIFICATION_TOKEN_REQUIRED",
        );
      }
    }
    // Clients log in where this points them, so only a proven contact, identity or key is found.
    const organizationId = await provenSuborg(ctx, body.filterType, body.filterValue);
    return organizationId ? { organizationId } : {};
  },
});
