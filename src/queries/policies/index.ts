import type { QueryDefinition } from "../definition.js";
import { getPolicy } from "./get-policy.js";
import { getPolicyEvaluations } from "./get-policy-evaluations.js";
import { listPolicies } from "./list-policies.js";

export const policyQueries: QueryDefinition[] = [getPolicy, listPolicies, getPolicyEvaluations];
