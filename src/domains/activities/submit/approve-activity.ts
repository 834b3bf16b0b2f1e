import { defineVote } from "../../../operations/vote-definition.js";

export const approveActivity = defineVote({
  operation: "approve_activity",
  type: "ACTIVITY_TYPE_APPROVE_ACTIVITY",
  intentKey: "approveActivityIntent",
  resultKey: "approveActivityResult",
  sdkMethod: "approveActivity",
  summary: "Approve an activity waiting for consensus, by fingerprint; answers with that activity (executed once enough approvals arrive)",
  resource: "ACTIVITY",
  action: "APPROVE",
  selection: "VOTE_SELECTION_APPROVED",
  attestedStamp: true,
});
