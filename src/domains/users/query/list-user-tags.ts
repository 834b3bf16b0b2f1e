import { Type } from "@sinclair/typebox";
import { toApiTimestamp } from "../../../schema/timestamp.js";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";
import { TagRecord } from "../../../schema/tag.js";

export const listUserTags = defineQuery({
  operation: "list_user_tags",
  sdkMethod: "listUserTags",
  summary: "Every user tag of the organization",
  body: Type.Object({ organizationId: Id() }),
  result: Type.Object({ userTags: Type.Array(TagRecord) }),
  async execute({ organization, services }) {
    const rows = await services.db.query<{ id: string; name: string; created_at: Date; updated_at: Date }>(
      "SELECT id, name, created_at, updated_at FROM user_tags WHERE organization_id = $1 ORDER BY created_at, id",
      [organization.id],
    );
    return {
      userTags: rows.map((row) => ({
        tagId: row.id,
        tagName: row.name,
        tagType: "TAG_TYPE_USER",
        createdAt: toApiTimestamp(row.created_at),
        updatedAt: toApiTimestamp(row.updated_at),
      })),
    };
  },
});
