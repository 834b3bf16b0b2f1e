import { Type } from "@sinclair/typebox";
import { toApiTimestamp } from "../../../schema/timestamp.js";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";
import { TagRecord } from "../../../schema/tag.js";

export const listPrivateKeyTags = defineQuery({
  operation: "list_private_key_tags",
  sdkMethod: "listPrivateKeyTags",
  summary: "Every private key tag of the organization",
  body: Type.Object({ organizationId: Id() }),
  result: Type.Object({ privateKeyTags: Type.Array(TagRecord) }),
  async execute({ organization, services }) {
    const rows = await services.db.query<{ id: string; name: string; created_at: Date; updated_at: Date }>(
      "SELECT id, name, created_at, updated_at FROM private_key_tags WHERE organization_id = $1 ORDER BY created_at, id",
      [organization.id],
    );
    return {
      privateKeyTags: rows.map((row) => ({
        tagId: row.id,
        tagName: row.name,
        tagType: "TAG_TYPE_PRIVATE_KEY",
        createdAt: toApiTimestamp(row.created_at),
        updatedAt: toApiTimestamp(row.updated_at),
      })),
    };
  },
});
