import type { Domain } from "../../operations/domain.js";
import { getMfaPolicies } from "./query/get-mfa-policies.js";
import { getMfaPolicy } from "./query/get-mfa-policy.js";
import { getMfaStatus } from "./query/get-mfa-status.js";
import { createMfaPolicy } from "./submit/create-mfa-policy.js";
import { deleteMfaPolicy } from "./submit/delete-mfa-policy.js";
import { updateMfaPolicy } from "./submit/update-mfa-policy.js";

export const mfaPoliciesDomain: Domain = {
  name: "mfa-policies",
  activities: [createMfaPolicy, updateMfaPolicy, deleteMfaPolicy],
  queries: [getMfaPolicy, getMfaPolicies, getMfaStatus],
};
