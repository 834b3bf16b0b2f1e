import { Type } from "@sinclair/typebox";
import { liveVotes } from "../../activities/votes.js";
import { notFound } from "../../../errors.js";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";
import { AuthenticationMethodRecord, RequiredAuthenticationMethodRecord } from "../../../records/mfa-policy.js";
import { progressOf, recordedRequirements } from "../requirements.js";

const MfaStatus = Type.Object({
  mfaPolicyId: Type.String(),
  userId: Type.String(),
  satisfied: Type.Boolean(),
  satisfiedMethods: Type.Array(AuthenticationMethodRecord),
  requiredMethods: Type.Array(RequiredAuthenticationMethodRecord),
});

export const getMfaStatus = defineQuery({
  operation: "get_mfa_status",
  sdkMethod: "getMfaStatus",
  summary: "Which MFA steps the voters of an activity have satisfied (by approvals that still count)",
  body: Type.Object({ organizationId: Id(), activityId: Id(), userId: Type.Optional(Id()) }),
  result: Type.Object({ mfaStatuses: Type.Array(MfaStatus) }),
  async execute({ organization, services, now }, { activityId, userId }) {
    const { db } = services;
    const [activity] = await db.query<{ created_at: Date }>("SELECT created_at FROM activities WHERE id = $1 AND organization_id = $2", [
      activityId,
      organization.id,
    ]);
    if (!activity)
      throw notFound(`activityId: no activity ${JSON.stringify(activityId)} in organization ${organization.id}`, "ACTIVITY_NOT_FOUND");
    const { votes } = await liveVotes(db, activityId, now);
    const progress = progressOf(await recordedRequirements(db, activityId, userId), votes, activity.created_at);
    return {
      mfaStatuses: progress.map((p) => ({
        mfaPolicyId: p.mfaPolicyId,
        userId: p.userId,
        satisfied: p.satisfied,
        satisfiedMethods: p.matched.flatMap((m) => (m ? [{ type: m.type, ...(m.id ? { id: m.id } : {}) }] : [])),
        requiredMethods: p.steps,
      })),
    };
  },
});
