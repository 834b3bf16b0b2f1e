import { Type } from "@sinclair/typebox";
import { randomUUID } from "node:crypto";
import { requireUser } from "../../../records/user.js";
import { Id, Name, IdList } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { assertTagCapacity, assertTagNameFree } from "../../tags.js";
import { mustExist } from "../../references.js";

export const createUserTag = defineActivity({
  operation: "create_user_tag",
  type: "ACTIVITY_TYPE_CREATE_USER_TAG",
  intentKey: "createUserTagIntent",
  resultKey: "createUserTagResult",
  result: Type.Object({ userTagId: Type.String(), userIds: IdList() }),
  sdkMethod: "createUserTag",
  summary: "Create a user tag and attach it to users",
  resource: "USER",
  action: "CREATE",
  parameters: Type.Object({ userTagName: Name(), userIds: Type.Array(Id(), { maxItems: 100 }) }),
  async validate({ db, organization }, { userIds }) {
    for (const [index, userId] of userIds.entries()) await mustExist(requireUser(db, organization.id, userId, `userIds[${index}]`));
  },
  async execute({ tx, organization, now }, { userTagName, userIds }) {
    await assertTagCapacity(tx, organization);
    await assertTagNameFree(tx, "user_tags", organization.id, userTagName, "userTagName");
    const userTagId = randomUUID();
    await tx.query("INSERT INTO user_tags (id, organization_id, name, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)", [
      userTagId,
      organization.id,
      userTagName,
      now,
    ]);
    for (const [index, userId] of userIds.entries()) {
      await requireUser(tx, organization.id, userId, `userIds[${index}]`);
      await tx.query("INSERT INTO user_tag_assignments (tag_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING", [userTagId, userId]);
    }
    return { userTagId, userIds };
  },
});
