import type { Domain } from "../../operations/domain.js";
import { approveActivity } from "./submit/approve-activity.js";
import { getActivity } from "./query/get-activity.js";
import { listActivities } from "./query/list-activities.js";
import { listAppProofs } from "./query/list-app-proofs.js";
import { rejectActivity } from "./submit/reject-activity.js";

export const activitiesDomain: Domain = {
  name: "activities",
  activities: [],
  votes: [approveActivity, rejectActivity],
  queries: [getActivity, listActivities, listAppProofs],
};
