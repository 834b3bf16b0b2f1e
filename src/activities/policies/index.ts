import type { ActivityDefinition } from "../definition.js";
import { approveActivity } from "./approve-activity.js";
import { createPolicies } from "./create-policies.js";
import { createPolicy } from "./create-policy.js";
import { deletePolicies } from "./delete-policies.js";
import { deletePolicy } from "./delete-policy.js";
import { rejectActivity } from "./reject-activity.js";
import { updatePolicy } from "./update-policy.js";

export const policyActivities: ActivityDefinition[] = [createPolicy, createPolicies, updatePolicy, deletePolicy, deletePolicies, approveActivity, rejectActivity];
