import { Type } from "@sinclair/typebox";
import { failedPrecondition } from "../../../errors.js";
import { requireUser } from "../../../records/user.js";
import { Id, IdList } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { mustExist } from "../../references.js";

export const deleteUsers = defineActivity({
  operation: "delete_users",
  type: "ACTIVITY_TYPE_DELETE_USERS",
  intentKey: "deleteUsersIntent",
  resultKey: "deleteUsersResult",
  result: Type.Object({ userIds: IdList() }),
  sdkMethod: "deleteUsers",
  summary: "Delete users with all their credentials",
  resource: "USER",
  action: "DELETE",
  policyParams: { user_ids: "userIds" },
  parameters: Type.Object({ userIds: Type.Array(Id(), { minItems: 1, maxItems: 100 }) }),
  async validate({ db, organization }, { userIds }) {
    for (const [index, userId] of userIds.entries()) await mustExist(requireUser(db, organization.id, userId, `userIds[${index}]`));
  },
  async execute({ tx, organization }, { userIds }) {
    for (const [index, userId] of userIds.entries()) {
      const user = await requireUser(tx, organization.id, userId, `userIds[${index}]`);
      if (user.is_root) {
        throw failedPrecondition(
          `userIds[${index}]: user ${userId} is in the root quorum of organization ${organization.id} (quorum users missing); remove them with update_root_quorum first`,
          "REQUEST_INVALID",
        );
      }
      await tx.query("DELETE FROM users WHERE id = $1", [userId]);
    }
    return { userIds };
  },
});
