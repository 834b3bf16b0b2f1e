import { Type } from "@sinclair/typebox";
import { notFound } from "../../../errors.js";
import { toApiTimestamp, ApiTimestamp } from "../../../schema/timestamp.js";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";

export const getPolicyEvaluations = defineQuery({
  operation: "get_policy_evaluations",
  sdkMethod: "getPolicyEvaluations",
  summary: "How each policy evaluated for an activity, once per vote that triggered a decision",
  body: Type.Object({ organizationId: Id(), activityId: Id() }),
  result: Type.Object({
    policyEvaluations: Type.Array(
      Type.Object({
        id: Type.String(),
        activityId: Type.String(),
        organizationId: Type.String(),
        voteId: Type.String(),
        policyEvaluations: Type.Array(Type.Object({ policyId: Type.String(), outcome: Type.String() })),
        createdAt: ApiTimestamp,
      }),
    ),
  }),
  async execute({ organization, services }, { activityId }) {
    const [activity] = await services.db.query("SELECT id FROM activities WHERE id = $1 AND organization_id = $2", [
      activityId,
      organization.id,
    ]);
    if (!activity)
      throw notFound(`activityId: no activity ${JSON.stringify(activityId)} in organization ${organization.id}`, "ACTIVITY_NOT_FOUND");
    const rows = await services.db.query<{
      id: string;
      vote_id: string;
      evaluations: { policyId: string; outcome: string }[];
      created_at: Date;
    }>("SELECT id, vote_id, evaluations, created_at FROM policy_evaluations WHERE activity_id = $1 ORDER BY created_at, id", [activityId]);
    return {
      policyEvaluations: rows.map((row) => ({
        id: row.id,
        activityId,
        organizationId: organization.id,
        voteId: row.vote_id,
        policyEvaluations: row.evaluations,
        createdAt: toApiTimestamp(row.created_at),
      })),
    };
  },
});
