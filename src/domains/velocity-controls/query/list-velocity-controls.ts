import { Type } from "@sinclair/typebox";
import { defineQuery } from "../../../operations/query-definition.js";
import { velocityControlRecord, VelocityControlRecord, type VelocityControlRow } from "../../../records/velocity-control.js";
import { Id, Pagination } from "../../../schema/common.js";
import { pageLimit } from "../../../schema/pagination.js";

const PageInfo = Type.Object({
  hasNextPage: Type.Boolean(),
  hasPreviousPage: Type.Boolean(),
  startCursor: Type.Optional(Type.String()),
  endCursor: Type.Optional(Type.String()),
});

export const listVelocityControls = defineQuery({
  operation: "list_velocity_controls",
  sdkMethod: "listVelocityControls",
  summary: "The organization's velocity controls, oldest first, a page at a time (cursors are control ids)",
  body: Type.Object({ organizationId: Id(), paginationOptions: Type.Optional(Pagination) }),
  result: Type.Object({ velocityControls: Type.Array(VelocityControlRecord), pageInfo: PageInfo }),
  async execute({ organization, services }, { paginationOptions }) {
    const limit = pageLimit(paginationOptions);
    const params: unknown[] = [organization.id];
    let where = "organization_id = $1";
    const backwards = !paginationOptions?.after && paginationOptions?.before !== undefined;
    const cursor = paginationOptions?.after ?? paginationOptions?.before;
    if (cursor !== undefined) {
      params.push(cursor);
      where += ` AND seq ${backwards ? "<" : ">"} (SELECT seq FROM velocity_controls WHERE id = $2 AND organization_id = $1)`;
    }
    params.push(limit + 1);
    const rows = await services.db.query<VelocityControlRow>(
      `SELECT id, organization_id, identifier, name, data_source, aggregation, created_at, updated_at FROM velocity_controls
        WHERE ${where} ORDER BY seq ${backwards ? "DESC" : "ASC"} LIMIT $${params.length}`,
      params,
    );
    const more = rows.length > limit;
    const page = rows.slice(0, limit);
    if (backwards) page.reverse();
    return {
      velocityControls: page.map(velocityControlRecord),
      pageInfo: {
        hasNextPage: backwards ? cursor !== undefined : more,
        hasPreviousPage: backwards ? more : cursor !== undefined,
        ...(page.length > 0 ? { startCursor: page[0]!.id, endCursor: page[page.length - 1]!.id } : {}),
      },
    };
  },
});
