import { Type } from "@sinclair/typebox";
import { requireUser } from "../../../records/user.js";
import { Id, Name } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { assertTagNameFree, requireUserTag } from "../../tags.js";
import { mustExist } from "../../references.js";

export const updateUserTag = defineActivity({
  operation: "update_user_tag",
  type: "ACTIVITY_TYPE_UPDATE_USER_TAG",
  intentKey: "updateUserTagIntent",
  resultKey: "updateUserTagResult",
  result: Type.Object({ userTagId: Type.String() }),
  sdkMethod: "updateUserTag",
  summary: "Rename a user tag and change which users carry it",
  resource: "USER",
  action: "UPDATE",
  parameters: Type.Object({
    userTagId: Id(),
    newUserTagName: Type.Optional(Name()),
    addUserIds: Type.Array(Id(), { maxItems: 100 }),
    removeUserIds: Type.Array(Id(), { maxItems: 100 }),
  }),
  async validate({ db, organization }, { userTagId, addUserIds, removeUserIds }) {
    await mustExist(requireUserTag(db, organization.id, userTagId, "userTagId"));
    for (const [index, userId] of addUserIds.entries()) await mustExist(requireUser(db, organization.id, userId, `addUserIds[${index}]`));
    for (const [index, userId] of removeUserIds.entries())
      await mustExist(requireUser(db, organization.id, userId, `removeUserIds[${index}]`));
  },
  async execute({ tx, organization, now }, { userTagId, newUserTagName, addUserIds, removeUserIds }) {
    await requireUserTag(tx, organization.id, userTagId, "userTagId");
    if (newUserTagName !== undefined && newUserTagName !== "") {
      const [current] = await tx.query<{ name: string }>("SELECT name FROM user_tags WHERE id = $1", [userTagId]);
      if (current?.name !== newUserTagName) await assertTagNameFree(tx, "user_tags", organization.id, newUserTagName, "newUserTagName");
      await tx.query("UPDATE user_tags SET name = $2 WHERE id = $1", [userTagId, newUserTagName]);
    }
    for (const [index, userId] of addUserIds.entries()) {
      await requireUser(tx, organization.id, userId, `addUserIds[${index}]`);
      await tx.query("INSERT INTO user_tag_assignments (tag_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING", [userTagId, userId]);
    }
    for (const [index, userId] of removeUserIds.entries()) {
      await requireUser(tx, organization.id, userId, `removeUserIds[${index}]`);
      await tx.query("DELETE FROM user_tag_assignments WHERE tag_id = $1 AND user_id = $2", [userTagId, userId]);
    }
    await tx.query("UPDATE user_tags SET updated_at = $2 WHERE id = $1", [userTagId, now]);
    return { userTagId };
  },
});
