import { Type, type Static } from "@sinclair/typebox";
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
