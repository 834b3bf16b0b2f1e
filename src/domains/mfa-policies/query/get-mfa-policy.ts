import { Type } from "@sinclair/typebox";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";
import { mfaPolicyRecord, MfaPolicyRecord, requireMfaPolicy } from "../mfa-policies.js";

export const getMfaPolicy = defineQuery({
  operation: "get_mfa_policy",
  sdkMethod: "getMfaPolicy",
  summary: "One MFA policy of a user",
  body: Type.Object({ organizationId: Id(), userId: Id(), mfaPolicyId: Id() }),
  result: Type.Object({ mfaPolicy: MfaPolicyRecord }),
  async execute({ organization, services }, { userId, mfaPolicyId }) {
    return { mfaPolicy: mfaPolicyRecord(await requireMfaPolicy(services.db, organization.id, userId, mfaPolicyId)) };
  },
});
