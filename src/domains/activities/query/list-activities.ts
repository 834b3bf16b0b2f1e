import { Type } from "@sinclair/typebox";
import { activityRecord, type ActivityRow, ActivityRecord } from "../../../records/activity.js";
import { loadVotes } from "../../../records/vote.js";
import { ACTIVITY_STATUSES, Id, Pagination, StringEnum } from "../../../schema/common.js";
import { pageLimit } from "../../../schema/pagination.js";
import { defineQuery } from "../../../operations/query-definition.js";

export const listActivities = defineQuery({
  operation: "list_activities",
  sdkMethod: "getActivities",
  summary: "The organization's activities, newest first, filtered by status and type, paginated by activity id",
  body: Type.Object({
    organizationId: Id(),
    filterByStatus: Type.Optional(Type.Array(StringEnum(ACTIVITY_STATUSES))),
    filterByType: Type.Optional(Type.Array(Type.String({ pattern: "^ACTIVITY_TYPE_[A-Z0-9_]+$" }))),
    paginationOptions: Type.Optional(Pagination),
  }),
  result: Type.Object({ activities: Type.Array(ActivityRecord) }),
  async execute({ organization, principal, services }, { filterByStatus, filterByType, paginationOptions }) {
    const params: unknown[] = [organization.id];
    let where = "organization_id = $1";
    if (filterByStatus?.length) {
      params.push(filterByStatus);
      where += ` AND status = ANY($${params.length}::text[])`;
    }
    if (filterByType?.length) {
      params.push(filterByType);
      where += ` AND type = ANY($${params.length}::text[])`;
    }
    // Newest first: "before" a cursor means newer, "after" means older, as in the hosted API's lists.
    if (paginationOptions?.after) {
      params.push(paginationOptions.after);
      where += ` AND (created_at, id) < (SELECT created_at, id FROM activities WHERE id = $${params.length})`;
    } else if (paginationOptions?.before) {
      params.push(paginationOptions.before);
      where += ` AND (created_at, id) > (SELECT created_at, id FROM activities WHERE id = $${params.length})`;
    }
    params.push(pageLimit(paginationOptions));
    // A "before" page is the one adjacent to the cursor: take the oldest newer ones, then show them newest first.
    const ascending = !paginationOptions?.after && Boolean(paginationOptions?.before);
    const order = ascending ? "created_at ASC, id ASC" : "created_at DESC, id DESC";
    const rows = await services.db.query<ActivityRow>(
      `SELECT * FROM activities WHERE ${where} ORDER BY ${order} LIMIT $${params.length}`,
      params,
    );
    if (ascending) rows.reverse();
    const votes = await loadVotes(
      services.db,
      rows.map((r) => r.id),
    );
    return { activities: rows.map((row) => activityRecord(row, votes.get(row.id) ?? [], principal.user.id)) };
  },
});
