import { Type } from "@sinclair/typebox";
import { defineQuery } from "../../../operations/query-definition.js";
import { compilePolicyExpression, evaluateExpression } from "../../../policy/language/index.js";
import { Id } from "../../../schema/common.js";

const ActivePolicyStatus = Type.Object({
  organizationId: Type.String(),
  policyId: Type.String(),
  active: Type.Boolean(),
  timeExpr: Type.Optional(Type.String()),
  error: Type.Optional(Type.String()),
});

/** A policy's time window at `now`: open, closed, or the reason it could not be evaluated (then reported inactive). */
function timeWindow(source: string, now: number): { active: boolean; error?: string } {
  try {
    return { active: evaluateExpression(compilePolicyExpression(source, "time"), { keywords: {}, now }) };
  } catch (error) {
    return { active: false, error: error instanceof Error ? error.message : String(error) };
  }
}

export const getActivePolicies = defineQuery({
  operation: "get_active_policies",
  sdkMethod: "getActivePolicies",
  summary: "Every policy's time window evaluated at the server's clock, oldest policy first, with that instant (evaluatedAtMs)",
  body: Type.Object({ organizationId: Id() }),
  result: Type.Object({ statuses: Type.Array(ActivePolicyStatus), evaluatedAtMs: Type.String() }),
  async execute({ organization, services, now }) {
    const policies = await services.db.query<{ id: string; time: string | null }>(
      "SELECT id, time FROM policies WHERE organization_id = $1 ORDER BY seq",
      [organization.id],
    );
    const at = now.getTime();
    return {
      statuses: policies.map(({ id, time }) => ({
        organizationId: organization.id,
        policyId: id,
        ...(time === null || time.trim() === "" ? { active: true } : { ...timeWindow(time, at), timeExpr: time }),
      })),
      evaluatedAtMs: String(at),
    };
  },
});
