import { Type } from "@sinclair/typebox";
import { requireUser } from "../../records/users.js";
import { Id, Name } from "../../schema/common.js";
import { defineActivity } from "../definition.js";
import { assertUserNameFree } from "../shared/users.js";

export const updateUserName = defineActivity({
  operation: "update_user_name",
  type: "ACTIVITY_TYPE_UPDATE_USER_NAME",
  intentKey: "updateUserNameIntent",
  resultKey: "updateUserNameResult",
  sdkMethod: "updateUserName",
  summary: "Rename a user",
  resource: "USER",
  action: "UPDATE",
  parameters: Type.Object({ userId: Id(), userName: Name() }),
  selfServiceUserId: (params) => params.userId,
  async execute({ tx, organization, now }, { userId, userName }) {
    const user = await requireUser(tx, organization.id, userId);
    if (user.name !== userName) await assertUserNameFree(tx, organization.id, userName, "userName");
    await tx.query("UPDATE users SET name = $2, updated_at = $3 WHERE id = $1", [userId, userName, now]);
    return { userId };
  },
});
