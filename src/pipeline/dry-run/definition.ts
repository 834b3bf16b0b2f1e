import { Type } from "@sinclair/typebox";
import { defineQuery } from "../../operations/query-definition.js";
import { invalidArgument } from "../../errors.js";
import { Id } from "../../schema/common.js";
import { dryRunAnswer, DryRunAnswer } from "./answer.js";
import { callerAsMember } from "./as-member.js";
import { compileDraftedPolicies, DraftedPolicies } from "./drafted-policies.js";
import { dryRunDraftedActivity, dryRunPastActivity } from "./evaluate.js";

/**
 * POST /strongroom/v1/query/dry_run_activity: would this activity be allowed, denied or wait for consensus
 * (or authenticators), and by which policy — for a drafted activity or a past one, against the organization's
 * policies or a drafted set, as the caller or (`asUserId`) as any member of the organization. Authenticated and
 * scoped like every query (the organization or its parent); it executes nothing and writes nothing.
 */
export const dryRunActivity = defineQuery({
  operation: "dry_run_activity",
  sdkMethod: "dryRunActivity",
  summary: "Dry run: how the policies and root quorum would decide a drafted or past activity, executing nothing",
  strongroomOnly: true,
  body: Type.Object({
    organizationId: Id(),
    activity: Type.Optional(
      Type.Object({
        type: Type.String({ minLength: 1, maxLength: 256, description: "The versioned activity type, e.g. ACTIVITY_TYPE_CREATE_USER_TAG" }),
        parameters: Type.Record(Type.String(), Type.Unknown(), { description: "The activity's parameters, as it would be submitted" }),
      }),
    ),
    activityId: Type.Optional(Id("A past activity of the organization, decided again with its requester and votes")),
    policies: Type.Optional(DraftedPolicies),
    asUserId: Type.Optional(
      Id("With a drafted activity: decide it as if this member of the organization submitted it (by default, the caller)"),
    ),
  }),
  result: DryRunAnswer,
  async execute({ organization, principal, now, services }, body) {
    if ((body.activity === undefined) === (body.activityId === undefined)) {
      const why = "exactly one of activity (a drafted activity) and activityId (a past activity) is required";
      throw invalidArgument(`activity: ${why}`, [
        { field: "activity", description: why },
        { field: "activityId", description: why },
      ]);
    }
    if (body.asUserId !== undefined && body.activity === undefined) {
      throw invalidArgument("asUserId: only with a drafted activity (a past activity is decided with its own requester)", [
        { field: "asUserId", description: "only with activity" },
      ]);
    }
    const policies = body.policies && compileDraftedPolicies(body.policies);
    const caller = { organization, principal, now };
    const asCaller = body.asUserId === undefined ? caller : await callerAsMember(services.db, caller, body.asUserId);
    const { definition, decision, velocity } = body.activity
      ? await dryRunDraftedActivity(services, asCaller, body.activity, policies)
      : await dryRunPastActivity(services, caller, body.activityId!, policies);
    return dryRunAnswer(services.db, definition.type, decision, body.policies, velocity);
  },
});
