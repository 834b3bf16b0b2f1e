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
    const renamed = await tx.query(
      `UPDATE users SET name = $3, updated_at = $4
        WHERE id = $1 AND organization_id = $2
          AND NOT EXISTS (SELECT 1 FROM users other WHERE other.organization_id = $2 AND other.name = $3 AND other.id <> $1)
        RETURNING id`,
      [userId, organization.id, userName, now],
    );
    if (renamed.length === 0) {
      // Nothing renamed: say why — no such user, or the name is another user's.
      await requireUser(tx, organization.id, userId);
      await assertUserNameFree(tx, organization.id, userName, "userName");
    }
    return { userId };
  },
});
