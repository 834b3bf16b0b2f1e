import { Type, type Static } from "@sinclair/typebox";
import { decodeJwt } from "jose";
import { invalidArgument } from "../../errors.js";
import { Id, Pagination } from "../../schema/common.js";
import { pageLimit } from "../../schema/pagination.js";
import type { Queryable } from "../../store/database.js";

/** The request of list_suborgs and list_verified_suborgs. */
export const SubOrganizationFilter = Type.Object({
  organizationId: Id(),
  filterType: Type.Optional(Type.String()),
  filterValue: Type.Optional(Type.String()),
  paginationOptions: Type.Optional(Pagination),
});

/**
 * Ids of the sub-organizations `o` of the organization in `params[0]` that meet `condition` (SQL over `o`
 * using the placeholders of `params`), oldest first, one page of them.
 */
export async function subOrganizationIds(
  db: Queryable,
  condition: string,
  params: unknown[],
  pagination: Static<typeof Pagination> | undefined,
): Promise<string[]> {
  const values = [...params];
  let cursor = "";
  if (pagination?.after) {
    values.push(pagination.after);
    cursor = ` AND (o.created_at, o.id) > (SELECT created_at, id FROM organizations WHERE id = $${values.length})`;
  } else if (pagination?.before) {
    values.push(pagination.before);
    cursor = ` AND (o.created_at, o.id) < (SELECT created_at, id FROM organizations WHERE id = $${values.length})`;
  }
  values.push(pageLimit(pagination));
  const rows = await db.query<{ id: string }>(
    `SELECT o.id FROM organizations o WHERE o.parent_id = $1 AND ${condition}${cursor} ORDER BY o.created_at, o.id LIMIT $${values.length}`,
    values,
  );
  return rows.map((r) => r.id);
}

/** For each filter, the SQL condition on a sub-organization `o` and how to turn filterValue into parameters. */
const FILTERS: Record<string, { condition: string; params: (value: string) => unknown[] }> = {
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
        throw invalidArgument('filterValue: for OIDC_CLAIMS, a JSON object {"iss", "sub", "aud"} of strings', [
          { field: "filterValue", description: "JSON {iss, sub, aud}" },
        ]);
      }
      return [claims.iss, claims.sub, claims.aud];
    },
  },
};

export type SubOrganizationFilterKind = (typeof FILTERS)[string];

/** The filter a filterType names, or a 400 naming the types there are. */
export function subOrganizationFilter(filterType: string): SubOrganizationFilterKind {
  const filter = FILTERS[filterType];
  if (!filter) {
    const known = Object.keys(FILTERS).join(", ");
    throw invalidArgument(`filterType: ${JSON.stringify(filterType)} is not one of ${known}`, [
      { field: "filterType", description: `must be one of ${known}` },
    ]);
  }
  return filter;
}
