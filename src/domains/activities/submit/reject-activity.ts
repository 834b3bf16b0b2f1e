import { Type } from "@sinclair/typebox";
import { internalError } from "../../../errors.js";
import { defineActivity } from "../../../pipeline/activity-definition.js";

export const rejectActivity = defineActivity({
  operation: "reject_activity",
  type: "ACTIVITY_TYPE_REJECT_ACTIVITY",
  intentKey: "rejectActivityIntent",
  resultKey: "rejectActivityResult",
  // A vote answers with the activity voted on, which carries its own result.
  result: Type.Object({}),
  sdkMethod: "rejectActivity",
  summary: "Reject an activity waiting for consensus, by fingerprint; answers with that activity, now REJECTED",
  resource: "ACTIVITY",
  action: "REJECT",
  parameters: Type.Object({ fingerprint: Type.String({ minLength: 1, description: "The fingerprint of the activity to vote on" }) }),
  vote: "VOTE_SELECTION_REJECTED",
  execute() {
    throw internalError("votes are handled by the activity engine, not executed as activities");
  },
});
