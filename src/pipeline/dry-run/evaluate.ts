import { enforceSessionScope } from "../../auth/session-scope.js";
import type { ActivityRow } from "../../records/activity.js";
import type { StoredVote } from "../../domains/activities/votes.js";
import type { ActivityDefinition } from "../../operations/activity-definition.js";
import { ApiError, GrpcCode, internalError, invalidField, notFound } from "../../errors.js";
import type { Decision, DecisionPolicy } from "../../policy/decision.js";
import type { VelocityLedger } from "../../policy/velocity/ledger.js";
import { validate } from "../../schema/validation.js";
import type { Services } from "../../services.js";
import { activitiesByType } from "../registry.js";
import { assertMayInitiate, type Caller } from "../steps/authenticate.js";
import { decideOnVotes, decideSubmission } from "../steps/decide.js";
import { checkSchema, validateWithDefinition } from "../steps/validate.js";

/** What a dry run decided, and about which activity type. */
export interface DryRunDecision {
  definition: ActivityDefinition;
  decision: Decision;
  /** The activity's velocity ledger: each control's aggregate and what the activity would add (none when refused before deciding). */
  velocity?: VelocityLedger;
}

/**
 * A drafted activity, requested as the caller: the submission pipeline's steps up to "decide" — the schema,
 * the session profile's scope and a parent's read-only access (their refusals answered as a denial, not
 * raised), the definition's `validate` (committed reads only), then the decision with the caller's stamp as
 * the first approval, MFA included. Nothing is claimed, prepared, executed or stored.
 */
export async function dryRunDraftedActivity(
  services: Services,
  caller: Caller,
  drafted: { type: string; parameters: Record<string, unknown> },
  policies: readonly DecisionPolicy[] | undefined,
): Promise<DryRunDecision> {
  const definition = activitiesByType.get(drafted.type);
  if (!definition) {
    throw invalidField(
      "activity.type",
      `unknown activity type ${JSON.stringify(drafted.type)}: it must be the versioned type an activity is submitted with (approve and reject are votes, not activities)`,
    );
  }
  const params = validate(definition.parameters, drafted.parameters, "activity.parameters") as Record<string, unknown>;
  try {
    await enforceSessionScope(services.db, caller.principal, caller.organization, definition, params, caller.now);
    assertMayInitiate(caller, definition);
  } catch (error) {
    if (error instanceof ApiError && error.code === GrpcCode.PERMISSION_DENIED) {
      return { definition, decision: { outcome: "deny", reason: error.message, evaluations: [] } };
    }
    throw error;
  }
  await validateWithDefinition(services, definition, caller, params);
  const { decision, velocity } = await decideSubmission(services.db, { definition, params, ...caller, policies });
  return { definition, decision, velocity };
}

/**
 * A past activity of the organization: its stored intent, decided again with its requester and every vote
 * it has that was not marked expired (the 24-hour approval window is not applied, so an old activity is
 * judged with the approvals it gathered), as a deciding vote would decide it — the MFA its voters were
 * asked for included.
 */
export async function dryRunPastActivity(
  services: Services,
  caller: Caller,
  activityId: string,
  policies: readonly DecisionPolicy[] | undefined,
): Promise<DryRunDecision> {
  const { db } = services;
  const [row] = await db.query<ActivityRow>("SELECT * FROM activities WHERE id = $1 AND organization_id = $2", [
    activityId,
    caller.organization.id,
  ]);
  if (!row) {
    throw notFound(`activityId: no activity ${JSON.stringify(activityId)} in organization ${caller.organization.id}`, "ACTIVITY_NOT_FOUND");
  }
  const definition = activitiesByType.get(row.type);
  if (!definition) throw internalError(`activity ${row.id} has type ${row.type}, which this server no longer serves`);
  const params = checkSchema(definition.parameters, row.intent[definition.intentKey]) as Record<string, unknown>;
  const votes = await db.query<StoredVote>("SELECT * FROM votes WHERE activity_id = $1 AND NOT expired ORDER BY created_at, id", [row.id]);
  const requester = votes[0]?.user_id ?? "";
  const { decision, velocity } = await decideOnVotes(
    db,
    { row, definition, params, organization: caller.organization, policies },
    votes,
    { userId: requester, firstVote: false },
    caller.now,
  );
  return { definition, decision, velocity };
}
