import { Type } from "@sinclair/typebox";
import { verifyVerificationToken } from "../../auth/verification-token.js";
import { permissionDenied } from "../../errors.js";
import { StringEnum } from "../../schema/common.js";
import { queryAsProxy } from "../act.js";
import { defineEndpoint } from "../endpoint.js";

const FILTER_TYPES = ["EMAIL", "PHONE_NUMBER", "OIDC_TOKEN", "OIDC_CLAIMS", "PUBLIC_KEY", "CREDENTIAL_ID", "USERNAME", "NAME"] as const;
const PII_FILTERS = new Set(["EMAIL", "PHONE_NUMBER"]);

export const account = defineEndpoint({
  path: "/v1/account",
  summary: "The sub-organization of the config's organization that has a user or credential matching the filter, or {} when none does",
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
      if (!body.verificationToken) {
        throw permissionDenied(
          `auth proxy config ${ctx.config.id} requires a verificationToken for ${body.filterType} lookups (verificationTokenRequiredForGetAccountPii)`,
          "VERIFICATION_TOKEN_REQUIRED",
        );
      }
      await verifyVerificationToken(ctx.services.signer, body.verificationToken, { contact: body.filterValue, now: ctx.services.clock(), field: "verificationToken" });
    }
    const { organizationIds } = (await queryAsProxy(ctx, "list_suborgs", {
      organizationId: ctx.config.organization_id,
      filterType: body.filterType,
      filterValue: body.filterValue,
      paginationOptions: { limit: "1" },
    })) as { organizationIds: string[] };
    return organizationIds[0] ? { organizationId: organizationIds[0] } : {};
  },
});
