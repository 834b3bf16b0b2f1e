import { Type } from "@sinclair/typebox";
import { Id, IdList } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { requireUserTag } from "../../tags.js";
import { mustExist } from "../../references.js";

export const deleteUserTags = defineActivity({
  operation: "delete_user_tags",
  type: "ACTIVITY_TYPE_DELETE_USER_TAGS",
  intentKey: "deleteUserTagsIntent",
  resultKey: "deleteUserTagsResult",
  result: Type.Object({ userTagIds: IdList(), userIds: IdList() }),
  sdkMethod: "deleteUserTags",
  summary: "Delete user tags; the result lists the users that carried them",
  resource: "USER",
  action: "DELETE",
  parameters: Type.Object({ userTagIds: Type.Array(Id(), { minItems: 1, maxItems: 100 }) }),
  async validate({ db, organization }, { userTagIds }) {
    for (const [index, tagId] of userTagIds.entries()) await mustExist(requireUserTag(db, organization.id, tagId, `userTagIds[${index}]`));
  },
  async execute({ tx, organization }, { userTagIds }) {
    for (const [index, tagId] of userTagIds.entries()) await requireUserTag(tx, organization.id, tagId, `userTagIds[${index}]`);
    const carriers = await tx.query<{ user_id: string }>(
      "SELECT DISTINCT user_id FROM user_tag_assignments WHERE tag_id = ANY($1::text[]) ORDER BY user_id",
      [userTagIds],
    );
    await tx.query("DELETE FROM user_tags WHERE id = ANY($1::text[]) AND organization_id = $2", [userTagIds, organization.id]);
    return { userTagIds, userIds: carriers.map((c) => c.user_id) };
  },
});
