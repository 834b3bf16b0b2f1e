import { loadActivityRecord, type ActivityRecord, type ActivityRow } from "../records/activity.js";
import { ParsedTransactions } from "../crypto/signing/parsed-transactions.js";
import { openSecretParams, redactedResult } from "../domains/activities/secret-fields.js";
import {
  expireVotes,
  findByFingerprint,
  insertVote,
  liveVotes,
  currentActivity,
  newVote,
  setStatus,
  type StoredVote,
  type VoteInput,
} from "../domains/activities/votes.js";
import type { VoteSelection } from "../records/vote.js";
import { requireOrganization } from "../records/organization.js";
import { ApiError, failedPrecondition, GrpcCode, internalError, invalidArgument } from "../errors.js";
import type { Services } from "../services.js";
import type { Queryable } from "../store/database.js";
import { FilledFieldsChanged, type ActivityDefinition } from "../operations/activity-definition.js";
import { activitiesByType } from "./registry.js";
import { enforceSessionScope } from "../auth/session-scope.js";
import { authenticateRequest } from "./steps/authenticate.js";
import { checkTypeAndLiveness } from "./steps/check-type-and-liveness.js";
import { claimFingerprint, type Claim } from "./steps/claim.js";
import { approvalOfPrincipal, decideOnVotes, DecisionChanged } from "./steps/decide.js";
import { advances, progressOf, recordedRequirements, recordRequirements } from "../domains/mfa-policies/requirements.js";
import { proofContext, runHandler, type AfterCommitTask, type HandlerOutcome } from "./steps/execute.js";
import { parseRequest, type SignedRequest } from "./steps/parse.js";
import { persistVoteOutcome } from "./steps/persist.js";
import { NOT_PREPARED, prepare, type Preparation } from "./steps/prepare.js";
import { afterCommit, type ActivityOutcome } from "./steps/respond.js";
import { checkSchema } from "./steps/validate.js";
import type { VoteDefinition } from "../operations/vote-definition.js";
import { recordRefusalEvent, recordVoteEvent, type AuditTrail } from "./steps/audit.js";

/**
 * The vote pipeline, approve_activity / reject_activity: parse → authenticate → check type and liveness →
 * validate (schema) → find the activity by fingerprint → cast the vote (below) → respond with that activity.
 */
export async function submitVote(services: Services, definition: VoteDefinition, request: SignedRequest): Promise<ActivityOutcome> {
  const trail: AuditTrail = {};
  try {
    const parsed = parseRequest(request.rawBody);
    Object.assign(trail, { fingerprint: parsed.fingerprint, organizationId: parsed.organizationId });
    const caller = await authenticateRequest(services, definition, parsed, request, { kind: "submit" });
    Object.assign(trail, { principal: caller.principal, organizationId: caller.organization.id });
    checkTypeAndLiveness(definition, parsed.body, services.stampClock());
    const { fingerprint } = checkSchema(definition.parameters, parsed.body.parameters);
    await enforceSessionScope(services.db, caller.principal, caller.organization, definition, { fingerprint }, caller.now);
    const target = await findByFingerprint(services.db, fingerprint, caller.organization.id);
    const vote: VoteInput = {
      principal: caller.principal,
      rawBody: request.rawBody,
      now: caller.now,
      onError: request.onError,
      clientIp: request.clientIp,
    };
    return { activity: await castVote(services, target, definition.selection, vote) };
  } catch (error) {
    const { clientIp, onError } = request;
    await recordRefusalEvent(
      services,
      { kind: "vote", operation: definition.operation, type: definition.type, clientIp, onError },
      trail,
      error,
    ); // record
    throw error;
  }
}

/** The statuses in which an activity takes votes. */
export const WAITING_STATUSES: ReadonlySet<string> = new Set(["ACTIVITY_STATUS_CONSENSUS_NEEDED", "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED"]);

/** A stored activity's definition and parameters, as its deciding approval runs it. */
interface StoredActivity {
  row: ActivityRow;
  definition: ActivityDefinition;
  params: Record<string, unknown>;
}

/**
 * A vote on an activity waiting for consensus (approve/reject, or the same body resubmitted by another user):
 *
 *   (claim the activity's fingerprint, when its execution prepares) → decide → prepare → [vote → decide again
 *   → execute → persist, in one transaction] → respond
 *
 * A rejection rejects it. An approval re-runs the decision with every approval that has not lapsed; once
 * allowed, the activity executes — once, under the activity row's lock, whichever process receives the
 * deciding vote. Its preparation runs only for that deciding vote, outside the transaction, and votes on such
 * an activity take turns (the claim), so two deciding votes never both make its outside calls. A failure found
 * only now (bad input included) fails the activity and the vote is kept.
 */
export async function castVote(
  services: Services,
  target: ActivityRow,
  selection: VoteSelection,
  vote: VoteInput,
): Promise<ActivityRecord> {
  const { principal } = vote;
  if (principal.viaParent || principal.user.organizationId !== target.organization_id) {
    throw invalidArgument(
      `organization mismatch: activity ${target.id} is in organization ${target.organization_id}, but user ${principal.user.id} is in organization ${principal.user.organizationId}`,
      "ORGANIZATION_MISMATCH",
    );
  }
  const activity = storedActivity(services, target);
  const claim = activity.definition.prepare
    ? await claimFingerprint(services.db, target.fingerprint, services.clock, { forVote: true })
    : undefined;
  let tasks: AfterCommitTask[];
  try {
    tasks = await decidePrepareRecord(services, activity, selection, vote, claim);
  } catch (error) {
    await claim?.release();
    throw error;
  }
  afterCommit(services, true, tasks, vote.onError);
  const record = await loadActivityRecord(services.db, "id", target.id, principal.user.id);
  if (!record) throw internalError(`activity ${target.id} vanished`);
  return record;
}

/** Its parameters as submitted: the stored intent, or, when it held bearer secrets, the sealed copy (secret-fields.ts). */
function storedActivity(services: Services, row: ActivityRow): StoredActivity {
  const definition = activitiesByType.get(row.type);
  if (!definition) throw internalError(`activity ${row.id} has type ${row.type}, which this server no longer serves`);
  const submitted = row.sealed_secret_params
    ? openSecretParams(services.kek, row.id, row.sealed_secret_params)
    : row.intent[definition.intentKey];
  return { row, definition, params: checkSchema(definition.parameters, submitted) as Record<string, unknown> };
}

/** What is stored of an execution's outcome: a result's bearer secrets redacted (the approver's answer reads the stored activity). */
function redactedOutcome(definition: ActivityDefinition, outcome: HandlerOutcome): HandlerOutcome {
  return outcome.status === "ACTIVITY_STATUS_COMPLETED" ? { ...outcome, result: redactedResult(definition, outcome.result) } : outcome;
}

/** decide → prepare → record the vote; again from "decide" when the transaction's decision allows what was not prepared. */
async function decidePrepareRecord(
  services: Services,
  activity: StoredActivity,
  selection: VoteSelection,
  vote: VoteInput,
  claim: Claim | undefined,
): Promise<AfterCommitTask[]> {
  const { definition, row } = activity;
  let prepared: Preparation = NOT_PREPARED;
  for (let attempt = 1, refills = 0; ; attempt++) {
    // fill: what the server fills in (a nonce, fees) is read again now, as the chain is when the approval runs it.
    const params =
      definition.fill && selection === "VOTE_SELECTION_APPROVED"
        ? await definition.fill(services, activity.params, await requireOrganization(services.db, row.organization_id))
        : activity.params;
    if (definition.prepare && selection === "VOTE_SELECTION_APPROVED" && prepared === NOT_PREPARED) {
      // As it is now: an earlier vote, which this one may have waited for, may have decided it.
      const current = await currentActivity(services.db, row.id);
      const organization = await requireOrganization(services.db, row.organization_id);
      const { votes, firstVote } = await votesThatCount(services.db, current, vote, selection);
      const provisional = await newVote(services.db, row.id, selection, vote);
      const { decision } = await decideOnVotes(
        services.db,
        { row: current, definition, params, organization },
        [...votes, provisional],
        { userId: vote.principal.user.id, firstVote },
        vote.now,
      );
      if (decision.outcome === "allow") prepared = await prepare(services, definition, params, organization, { atVote: true });
    }
    try {
      return await recordVote(services, { ...activity, params }, selection, vote, prepared, claim);
    } catch (error) {
      if (error instanceof FilledFieldsChanged && ++refills < 64) {
        attempt--;
        continue;
      }
      if (!(error instanceof DecisionChanged)) throw error;
      if (attempt === 3)
        throw new ApiError(GrpcCode.UNAVAILABLE, "the activity's decision kept changing while this vote was cast; try again");
    }
  }
}

/**
 * The votes that count on an activity still open to votes (waiting for consensus or authenticators), this
 * voter's not among them. In the vote's transaction (`expireLapsed`), approvals older than the approval window
 * are marked expired. Each user votes once — except that a user whose MFA for this activity is not yet met may
 * approve again, with another credential, when that credential proves a step still missing; any other approval
 * of theirs is refused, naming what it proves and what is still needed, and leaves the activity as it was.
 */
async function votesThatCount(
  db: Queryable,
  activity: ActivityRow,
  vote: VoteInput,
  selection: VoteSelection,
  expireLapsed = false,
): Promise<{ votes: StoredVote[]; firstVote: boolean }> {
  const { principal, now } = vote;
  if (!WAITING_STATUSES.has(activity.status)) {
    throw failedPrecondition(
      `activity ${activity.id} is ${activity.status}; votes are taken only while an activity waits for consensus or authenticators`,
      "ACTIVITY_NOT_VOTABLE",
    );
  }
  const { votes, lapsed } = await liveVotes(db, activity.id, now);
  if (lapsed && expireLapsed) await expireVotes(db, activity.id);
  if (!votes.some((v) => v.user_id === principal.user.id)) return { votes, firstVote: true };
  const alreadyVoted = () =>
    failedPrecondition(`user ${principal.user.id} has already voted on activity ${activity.id}; each user votes once`, "ALREADY_VOTED");
  if (selection !== "VOTE_SELECTION_APPROVED") throw alreadyVoted();
  const progress = progressOf(await recordedRequirements(db, activity.id, principal.user.id), votes, activity.created_at);
  if (progress.every((p) => p.satisfied)) throw alreadyVoted();
  const verdict = advances(progress, votes, principal.user.id, approvalOfPrincipal(principal).credential, activity.created_at);
  if (verdict !== true)
    throw failedPrecondition(
      `approval of activity ${activity.id} refused: user ${principal.user.id} still has MFA to satisfy for it, and ${verdict}. Approve with a credential of a required type; the activity keeps waiting`,
      "MFA_METHOD_NOT_ACCEPTED",
    );
  return { votes, firstVote: false };
}

/** The vote, the decision taken again, the execution and what it came to: one transaction, under the activity row's lock. */
async function recordVote(
  services: Services,
  activity: StoredActivity,
  selection: VoteSelection,
  vote: VoteInput,
  prepared: Preparation,
  claim: Claim | undefined,
): Promise<AfterCommitTask[]> {
  const { definition, params } = activity;
  const { now } = vote;
  const parsedTransactions = new ParsedTransactions();
  return services.db.transaction(async (tx) => {
    const row = await currentActivity(tx, activity.row.id, true);
    const { votes: counted, firstVote } = await votesThatCount(tx, row, vote, selection, true);
    const cast = await newVote(tx, row.id, selection, vote);
    await insertVote(tx, cast);
    let tasks: AfterCommitTask[] = [];
    if (selection === "VOTE_SELECTION_REJECTED") {
      await setStatus(tx, row.id, "ACTIVITY_STATUS_REJECTED", now);
      await recordVoteEvent(tx, services, row, { ...vote, selection }, "ACTIVITY_STATUS_REJECTED", undefined, undefined); // record
    } else {
      const organization = await requireOrganization(tx, row.organization_id);
      const { decision, requirements, velocity, submission } = await decideOnVotes(
        tx,
        { row, definition, params, organization, parsedTransactions },
        [...counted, cast],
        { userId: vote.principal.user.id, firstVote },
        now,
        true,
      );
      await recordRequirements(tx, row.id, requirements);
      let outcome: HandlerOutcome | undefined;
      if (decision.outcome === "allow") {
        if (definition.prepare && prepared === NOT_PREPARED) throw new DecisionChanged();
        const allowed = {
          id: row.id,
          requesterUserId: submission.user_id,
          requesterSessionProfileId: submission.credential?.sessionProfileId,
          byRootQuorum: decision.byRootQuorum === true,
          organization,
          definition,
          params,
          prepared: prepared === NOT_PREPARED ? undefined : prepared,
          parsedTransactions,
        };
        const proofs = row.generate_app_proofs ? proofContext(row.fingerprint, decision, [...counted, cast]) : undefined;
        await velocity.lockCharges(tx);
        outcome = await runHandler(tx, services, allowed, now, vote.onError, proofs, "fail");
        if (outcome.status === "ACTIVITY_STATUS_COMPLETED") await velocity.record(tx, row.id); // count it in the velocity controls
      }
      const persisted = await persistVoteOutcome(tx, row, cast, decision, outcome && redactedOutcome(definition, outcome), now);
      tasks = persisted.tasks;
      const failure = outcome?.status === "ACTIVITY_STATUS_FAILED" ? outcome.failure : undefined;
      await recordVoteEvent(tx, services, row, { ...vote, selection }, persisted.status, decision.evaluations, failure); // record
    }
    await claim?.release(tx);
    return tasks;
  });
}
