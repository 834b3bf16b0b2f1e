import { Type } from "@sinclair/typebox";
import { requireUser } from "../../../records/user.js";
import { Id, Name } from "../../../schema/common.js";
import { defineActivity, assertedBySelf } from "../../../operations/activity-definition.js";
import { assertUserNameFree } from "../users.js";
import { selfAssertedAfter } from "../contacts.js";
import { mustExist } from "../../references.js";

export const updateUserName = defineActivity({
  operation: "update_user_name",
  type: "ACTIVITY_TYPE_UPDATE_USER_NAME",
  intentKey: "updateUserNameIntent",
  resultKey: "updateUserNameResult",
  result: Type.Object({ userId: Type.String() }),
  sdkMethod: "updateUserName",
  summary: "Rename a user",
  resource: "USER",
  action: "UPDATE",
  parameters: Type.Object({ userId: Id(), userName: Name() }),
  // Not self-service: a free name that a policy names (approvers' `alias`) would be a permission anyone
  // could take. A name a policy let the user give themselves is self-asserted.
  async validate({ db, organization }, { userId }) {
    await mustExist(requireUser(db, organization.id, userId));
  },
  // Its UPDATE finds the user: when it renames nobody, execute looks why and fails (no such user, or the name is taken).
  validatedByExecute: true,
  async execute({ tx, organization, now, requesterUserId, byRootQuorum }, { userId, userName }) {
    const renamed = await tx.query(
      `UPDATE users SET name = $3, name_self_asserted = ${selfAssertedAfter("name_self_asserted", "$3", "name = $3", "false", "$5::boolean")}, updated_at = $4
        WHERE id = $1 AND organization_id = $2
          AND NOT EXISTS (SELECT 1 FROM users other WHERE other.organization_id = $2 AND other.name = $3 AND other.id <> $1)
        RETURNING id`,
      [userId, organization.id, userName, now, assertedBySelf({ requesterUserId, byRootQuorum }, userId)],
    );
    if (renamed.length === 0) {
      // Nothing renamed: say why — no such user, or the name is another user's.
      await requireUser(tx, organization.id, userId);
      await assertUserNameFree(tx, organization.id, userName, "userName");
    }
    return { userId };
  },
});
