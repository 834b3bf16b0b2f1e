import { Type } from "@sinclair/typebox";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";
import { requireUser } from "../../../records/user.js";
import { mfaPoliciesOf, mfaPolicyRecord, MfaPolicyRecord } from "../mfa-policies.js";

export const getMfaPolicies = defineQuery({
  operation: "get_mfa_policies",
  sdkMethod: "getMfaPolicies",
  summary: "A user's MFA policies, in the order they are evaluated",
  body: Type.Object({ organizationId: Id(), userId: Id() }),
  result: Type.Object({ mfaPolicies: Type.Array(MfaPolicyRecord) }),
  async execute({ organization, services }, { userId }) {
    await requireUser(services.db, organization.id, userId);
    return { mfaPolicies: (await mfaPoliciesOf(services.db, organization.id, userId)).map(mfaPolicyRecord) };
  },
});
