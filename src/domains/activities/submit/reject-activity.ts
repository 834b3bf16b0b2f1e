import { defineVote } from "../../../operations/vote-definition.js";

export const rejectActivity = defineVote({
  operation: "reject_activity",
  type: "ACTIVITY_TYPE_REJECT_ACTIVITY",
  intentKey: "rejectActivityIntent",
  resultKey: "rejectActivityResult",
  sdkMethod: "rejectActivity",
  summary: "Reject an activity waiting for consensus, by fingerprint; answers with that activity, now REJECTED",
  resource: "ACTIVITY",
  action: "REJECT",
  selection: "VOTE_SELECTION_REJECTED",
});
