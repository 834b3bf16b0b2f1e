import type { QueryDefinition } from "../definition.js";
import { getActivity } from "./get-activity.js";
import { listActivities } from "./list-activities.js";
import { listAppProofs } from "./list-app-proofs.js";

export const activityQueries: QueryDefinition[] = [getActivity, listActivities, listAppProofs];
