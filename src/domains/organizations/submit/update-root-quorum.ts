import { Type } from "@sinclair/typebox";
import { invalidArgument } from "../../../errors.js";
import { requireUser } from "../../../records/user.js";
import { Id } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { mustExist } from "../../references.js";

export const updateRootQuorum = defineActivity({
  operation: "update_root_quorum",
  type: "ACTIVITY_TYPE_UPDATE_ROOT_QUORUM",
  intentKey: "updateRootQuorumIntent",
  resultKey: "updateRootQuorumResult",
  result: Type.Object({}),
  sdkMethod: "updateRootQuorum",
  summary: "Set the root quorum: its users and how many of them must approve",
  resource: "ORGANIZATION",
  action: "UPDATE",
  rootQuorumOnly: true,
  parameters: Type.Object({
    threshold: Type.Integer({ minimum: 1 }),
    userIds: Type.Array(Id(), { minItems: 1, maxItems: 100, uniqueItems: true }),
  }),
  async validate({ db, organization }, { threshold, userIds }) {
    if (threshold > userIds.length) {
      throw invalidArgument(`threshold: ${threshold} is more than the ${userIds.length} user(s) in the quorum`, [
        { field: "threshold", description: "must be at most the number of userIds" },
      ]);
    }
    for (const [index, userId] of userIds.entries()) await mustExist(requireUser(db, organization.id, userId, `userIds[${index}]`));
  },
  async execute({ tx, organization, now }, { threshold, userIds }) {
    for (const [index, userId] of userIds.entries()) await requireUser(tx, organization.id, userId, `userIds[${index}]`);
    await tx.query("UPDATE users SET is_root = (id = ANY($2::text[])) WHERE organization_id = $1", [organization.id, userIds]);
    await tx.query("UPDATE organizations SET root_quorum_threshold = $2, updated_at = $3 WHERE id = $1", [organization.id, threshold, now]);
    return {};
  },
});
