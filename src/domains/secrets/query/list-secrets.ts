import { Type } from "@sinclair/typebox";
import { Id, Pagination } from "../../../schema/common.js";
import { pageLimit } from "../../../schema/pagination.js";
import { defineQuery } from "../../../operations/query-definition.js";
import { SecretMetadata, secretMetadata, type SecretRow } from "../secrets.js";

export const listSecrets = defineQuery({
  operation: "list_secrets",
  sdkMethod: "listSecrets",
  summary: "The organization's secrets, newest first: names, static properties and creation times, never values",
  body: Type.Object({ organizationId: Id(), paginationOptions: Type.Optional(Pagination) }),
  result: Type.Object({ secrets: Type.Array(SecretMetadata) }),
  async execute({ organization, services }, { paginationOptions }) {
    const params: unknown[] = [organization.id];
    let sql = "SELECT id, organization_id, name, static_properties, created_at FROM secrets s WHERE s.organization_id = $1";
    // Newest first: "after" a cursor is older than it, "before" newer.
    if (paginationOptions?.after) {
      params.push(paginationOptions.after);
      sql += ` AND s.seq < (SELECT seq FROM secrets WHERE id = $${params.length})`;
    } else if (paginationOptions?.before) {
      params.push(paginationOptions.before);
      sql += ` AND s.seq > (SELECT seq FROM secrets WHERE id = $${params.length})`;
    }
    sql += " ORDER BY s.seq DESC";
    if (paginationOptions) {
      params.push(pageLimit(paginationOptions));
      sql += ` LIMIT $${params.length}`;
    }
    const rows = await services.db.query<Omit<SecretRow, "sealed_value">>(sql, params);
    return { secrets: rows.map((row) => secretMetadata({ ...row, sealed_value: "" })) };
  },
});
