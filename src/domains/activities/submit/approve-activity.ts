import { Type } from "@sinclair/typebox";
import { internalError } from "../../../errors.js";
import { defineActivity } from "../../../pipeline/activity-definition.js";

export const approveActivity = defineActivity({
  operation: "approve_activity",
  type: "ACTIVITY_TYPE_APPROVE_ACTIVITY",
  intentKey: "approveActivityIntent",
  resultKey: "approveActivityResult",
  // A vote answers with the activity voted on, which carries its own result.
  result: Type.Object({}),
  sdkMethod: "approveActivity",
  summary: "Approve an activity waiting for consensus, by fingerprint; answers with that activity (executed once enough approvals arrive)",
  resource: "ACTIVITY",
  action: "APPROVE",
  parameters: Type.Object({ fingerprint: Type.String({ minLength: 1, description: "The fingerprint of the activity to vote on" }) }),
  vote: "VOTE_SELECTION_APPROVED",
  execute() {
    throw internalError("votes are handled by the activity engine, not executed as activities");
  },
});
