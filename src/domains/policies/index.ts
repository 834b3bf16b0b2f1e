import type { Domain } from "../../operations/domain.js";
import { createPolicies } from "./submit/create-policies.js";
import { createPolicy } from "./submit/create-policy.js";
import { deletePolicies } from "./submit/delete-policies.js";
import { deletePolicy } from "./submit/delete-policy.js";
import { getActivePolicies } from "./query/get-active-policies.js";
import { getPolicy } from "./query/get-policy.js";
import { getPolicyEvaluations } from "./query/get-policy-evaluations.js";
import { listPolicies } from "./query/list-policies.js";
import { updatePolicy } from "./submit/update-policy.js";

export const policiesDomain: Domain = {
  name: "policies",
  activities: [createPolicy, createPolicies, updatePolicy, deletePolicy, deletePolicies],
  queries: [getPolicy, listPolicies, getPolicyEvaluations, getActivePolicies],
};
