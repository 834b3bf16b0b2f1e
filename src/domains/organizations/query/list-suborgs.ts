import { decodeJwt } from "jose";
import { invalidArgument } from "../../../errors.js";
import { defineQuery } from "../../../pipeline/query-definition.js";
import { SubOrganizationFilter, subOrganizationIds } from "../sub-organization-ids.js";
import { Type } from "@sinclair/typebox";
import { IdList } from "../../../schema/common.js";

/** For each filter, the SQL condition on a sub-organization `o` and how to turn filterValue into parameters. */
export const FILTERS: Record<string, { condition: string; params: (value: string) => unknown[] }> = {
  NAME: { condition: "o.name = $2", params: (v) => [v] },
  USERNAME: { condition: "EXISTS (SELECT 1 FROM users u WHERE u.organization_id = o.id AND u.name = $2)", params: (v) => [v] },
  EMAIL: { condition: "EXISTS (SELECT 1 FROM users u WHERE u.organization_id = o.id AND lower(u.email) = lower($2))", params: (v) => [v] },
  PHONE_NUMBER: { condition: "EXISTS (SELECT 1 FROM users u WHERE u.organization_id = o.id AND u.phone_number = $2)", params: (v) => [v] },
  PUBLIC_KEY: {
    condition: "EXISTS (SELECT 1 FROM api_keys k WHERE k.organization_id = o.id AND k.public_key = lower($2))",
    params: (v) => [v],
  },
  CREDENTIAL_ID: {
    condition: "EXISTS (SELECT 1 FROM authenticators a WHERE a.organization_id = o.id AND a.credential_id = $2)",
    params: (v) => [v],
  },
  OIDC_TOKEN: {
    condition:
      "EXISTS (SELECT 1 FROM oauth_providers p WHERE p.organization_id = o.id AND p.issuer = $2 AND p.subject = $3 AND p.audience = $4)",
    params: (token) => {
      try {
        const claims = decodeJwt(token);
        const aud = Array.isArray(claims.aud) ? claims.aud[0] : claims.aud;
        return [claims.iss, claims.sub, aud];
      } catch {
        throw invalidArgument("filterValue: not a decodable OIDC token", "INVALID_OIDC_TOKEN", [
          { field: "filterValue", description: "must be a JWT" },
        ]);
      }
    },
  },
  /** filterValue is JSON {iss, sub, aud}: the identity an OAuth provider was registered with. */
  OIDC_CLAIMS: {
    condition:
      "EXISTS (SELECT 1 FROM oauth_providers p WHERE p.organization_id = o.id AND p.issuer = $2 AND p.subject = $3 AND p.audience = $4)",
    params: (value) => {
      let claims: Record<string, unknown> | undefined;
      try {
        claims = JSON.parse(value) as Record<string, unknown>;
      } catch {
        // refused below
      }
      if (!claims || typeof claims.iss !== "string" || typeof claims.sub !== "string" || typeof claims.aud !== "string") {
        throw invalidArgument('filterValue: for OIDC_CLAIMS, a JSON object {"iss", "sub", "aud"} of strings', "REQUEST_INVALID", [
          { field: "filterValue", description: "JSON {iss, sub, aud}" },
        ]);
      }
      return [claims.iss, claims.sub, claims.aud];
    },
  },
};

export const listSuborgs = defineQuery({
  operation: "list_suborgs",
  sdkMethod: "getSubOrgIds",
  summary:
    "Ids of the organization's sub-organizations, optionally filtered by name, user, email, phone, public key, credential id or OIDC token",
  body: SubOrganizationFilter,
  result: Type.Object({ organizationIds: IdList() }),
  async execute({ organization, services }, { filterType, filterValue, paginationOptions }) {
    const params: unknown[] = [organization.id];
    let condition = "TRUE";
    if (filterType) {
      const filter = FILTERS[filterType];
      if (!filter) {
        throw invalidArgument(
          `filterType: ${JSON.stringify(filterType)} is not one of ${Object.keys(FILTERS).join(", ")}`,
          "REQUEST_INVALID",
          [{ field: "filterType", description: `must be one of ${Object.keys(FILTERS).join(", ")}` }],
        );
      }
      params.push(...filter.params(filterValue ?? ""));
      condition = filter.condition;
    }
    return { organizationIds: await subOrganizationIds(services.db, condition, params, paginationOptions) };
  },
});
