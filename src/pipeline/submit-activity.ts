import { v7 as uuidv7 } from "uuid";
import { type ActivityRecord, type ActivityRow, activityRecord, loadActivityRecord } from "../records/activity.js";
import { newVote, type StoredVote, type VoteInput } from "../domains/activities/votes.js";
import {
  holdsIntentSecrets,
  redactedIntent,
  redactedRequestBody,
  redactedResult,
  sealSecretParams,
} from "../domains/activities/secret-fields.js";
import { ApiError, GrpcCode, internalError } from "../errors.js";
import type { Services } from "../services.js";
import { FilledFieldsChanged, type ActivityDefinition } from "../operations/activity-definition.js";
import { castVote, WAITING_STATUSES } from "./cast-vote.js";
import { recordRequirements } from "../domains/mfa-policies/requirements.js";
import { enforceSessionScope } from "../auth/session-scope.js";
import { assertMayInitiate, authenticateRequest, type Caller } from "./steps/authenticate.js";
import { checkTypeAndLiveness } from "./steps/check-type-and-liveness.js";
import { claimFingerprint, type Claim } from "./steps/claim.js";
import { decideSubmission, DecisionChanged } from "./steps/decide.js";
import { afterCommit, type ActivityOutcome } from "./steps/respond.js";
import { runHandler, proofContext, type AfterCommitTask, type HandlerOutcome } from "./steps/execute.js";
import { refuseSameBody, sameBodyBehind } from "./steps/fingerprint.js";
import { parseRequest, type ParsedRequest, type SignedRequest } from "./steps/parse.js";
import { AlreadySubmitted, newActivityRow, persistNewActivity } from "./steps/persist.js";
import { NOT_PREPARED, prepare, type Preparation } from "./steps/prepare.js";
import { checkSchema, validateWithDefinition, validationDeferred } from "./steps/validate.js";
import { newActivityEvent, recordRefusalEvent, type AuditTrail } from "./steps/audit.js";
import { ParsedTransactions } from "../crypto/signing/parsed-transactions.js";

/** Everything the steps after validation read. */
interface Submission {
  services: Services;
  definition: ActivityDefinition;
  parsed: ParsedRequest;
  caller: Caller;
  /** The parameters as the body has them (checked against the schema). */
  requested: Record<string, unknown>;
  /** What the decision and execution read: the requested parameters, with what the definition's `fill` added. */
  params: Record<string, unknown>;
  vote: VoteInput;
  /** What the definition's `validate` answered. */
  validated?: unknown;
  /** The transaction it signs, parsed once (at validation, outside any transaction) for every step. */
  parsedTransactions: ParsedTransactions;
  /** What the audit log records of it if it is refused. */
  trail: AuditTrail;
  clientIp?: string;
}

/**
 * The activity pipeline, `/public/v1/submit/<operation>`, top to bottom:
 *
 *   parse → authenticate → check type and liveness → validate (schema, then the definition's `validate`)
 *   → decide → look up the fingerprint → prepare → execute → persist → respond
 *
 * "decide" reads the policies; for a definition with `prepare`, it runs first outside any transaction, and
 * "prepare" (outside calls, CPU-heavy work) runs only when that decision allows the activity, after claiming
 * the body's fingerprint and looking it up, so no twin request repeats it. "execute" (the handler, database only) and "persist"
 * (the activity, its first vote, the evaluations, the outbox) share ONE transaction, in which the decision is
 * taken again (policies may have changed). A definition without `prepare` decides only there, and its
 * fingerprint is looked up by the insert itself. A denial writes nothing (403); bad input found by the
 * handler writes nothing (400); a business failure leaves a FAILED activity. The same body again answers the
 * same activity, and from another user while it waits (for consensus or authenticators) counts as their
 * approval. "decide" includes the requester's MFA: a matching MFA policy the submission's credential does not
 * satisfy keeps the activity in AUTHENTICATORS_NEEDED (src/domains/mfa-policies).
 */
export async function submitActivity(services: Services, route: ActivityDefinition, request: SignedRequest): Promise<ActivityOutcome> {
  const trail: AuditTrail = {};
  try {
    return await runSubmission(services, route, request, trail);
  } catch (error) {
    const { clientIp, onError } = request;
    await recordRefusalEvent(services, { kind: "activity", operation: route.operation, type: route.type, clientIp, onError }, trail, error); // record
    throw error;
  }
}

async function runSubmission(
  services: Services,
  route: ActivityDefinition,
  request: SignedRequest,
  trail: AuditTrail,
): Promise<ActivityOutcome> {
  const parsed = parseRequest(request.rawBody); // parse
  Object.assign(trail, { fingerprint: parsed.fingerprint, organizationId: parsed.organizationId });
  const definition = route.earlierVersions?.find((d) => d.type === parsed.body.type) ?? route;
  // The read validate makes, if the definition has one, leaves with authentication's statement.
  const readAhead = validationDeferred(definition) ? undefined : definition.readAhead?.(parsed.organizationId, parsed.body.parameters);
  const caller = await authenticateRequest(services, definition, parsed, request, { kind: "submit", ...(readAhead ? { readAhead } : {}) }); // authenticate
  Object.assign(trail, { principal: caller.principal, organizationId: caller.organization.id });
  checkTypeAndLiveness(definition, parsed.body, services.stampClock()); // check type and liveness
  const params = checkSchema(definition.parameters, parsed.body.parameters) as Record<string, unknown>; // validate: schema
  await enforceSessionScope(services.db, caller.principal, caller.organization, definition, params, caller.now); // authenticate: a session profile's scope
  const vote: VoteInput = {
    principal: caller.principal,
    rawBody: request.rawBody,
    recordedMessage: redactedRequestBody(definition, parsed.body, request.rawBody),
    now: caller.now,
    onError: request.onError,
    clientIp: request.clientIp,
  };
  const submission: Submission = {
    services,
    definition,
    parsed,
    caller,
    requested: params,
    params,
    vote,
    parsedTransactions: new ParsedTransactions(),
    trail,
    clientIp: request.clientIp,
  };
  try {
    assertMayInitiate(caller, definition); // authenticate: a parent's user may create only authentication activities
    if (!validationDeferred(definition))
      submission.validated = await validateWithDefinition(services, definition, caller, params, submission.parsedTransactions); // validate: the definition's checks
    return await decidePrepareExecute(submission); // decide → look up the fingerprint → prepare → execute → persist → respond
  } catch (error) {
    // look up the fingerprint: the same body again (or a twin that got there first) is answered with its activity.
    const earlier = await sameBodyBehind(error, services.db, parsed.fingerprint);
    if (!earlier) throw error;
    return { activity: await answerSameBody(services, earlier, vote) };
  }
}

/** decide → look up the fingerprint → prepare → execute → persist → respond; again from "decide" when the decision changed. */
async function decidePrepareExecute(submission: Submission): Promise<ActivityOutcome> {
  for (let attempt = 1, refills = 0; ; attempt++) {
    await fill(submission);
    const { claim, prepared } = await decideThenPrepare(submission);
    try {
      return await executeAndPersist(submission, prepared, claim);
    } catch (error) {
      // A twin's activity won the insert (its decision did not need this preparation): it answers the body, not a refusal.
      await claim?.settle(error, prepared !== NOT_PREPARED && !(error instanceof AlreadySubmitted));
      if (error instanceof FilledFieldsChanged) {
        // Another send took what was filled (a nonce): fill again; each round, one of the racing sends goes through.
        if (++refills === MAX_REFILLS)
          throw new ApiError(GrpcCode.UNAVAILABLE, "too many concurrent sends from this address took the nonce filled in; try again");
        attempt--;
        continue;
      }
      if (!(error instanceof DecisionChanged)) throw error;
      if (attempt === 3)
        throw new ApiError(GrpcCode.UNAVAILABLE, "the organization's policies changed while this activity was being decided; try again");
    }
  }
}

/** Concurrent sends from one address race for its next nonce; each round one wins, so this bounds the waiting line. */
const MAX_REFILLS = 64;

/**
 * Step "fill" (definitions with `fill` only): the fields the server fills in before the decision, read from a chain
 * node outside any transaction. A body submitted before is answered with its activity first, without asking a node.
 */
async function fill(submission: Submission): Promise<void> {
  const { services, definition, parsed, caller, requested } = submission;
  if (!definition.fill) return;
  await refuseSameBody(services.db, parsed.fingerprint); // look up the fingerprint
  submission.params = await definition.fill(services, requested, caller.organization);
}

/** The decision before preparing, and the preparation when it allows the activity (none without `prepare`). */
async function decideThenPrepare(submission: Submission): Promise<{ claim?: Claim; prepared: Preparation }> {
  const { services, definition, parsed, caller, params, parsedTransactions } = submission;
  if (!definition.prepare) return { prepared: NOT_PREPARED };
  const { db } = services;
  // The fingerprint is looked up once the claim is held (below), not before deciding too: a body seen before is rare,
  // and a refusal on the way (a decision or a check that no longer holds) is answered with its activity anyway.
  const { decision } = await decideSubmission(db, { definition, params, ...caller, parsedTransactions }); // decide, outside any transaction
  if (decision.outcome !== "allow") return { prepared: NOT_PREPARED };
  // A twin of this body (another request, another process) may be preparing: wait for it, then answer its activity.
  // look up the fingerprint: with each attempt at the claim, as a twin may have finished before it
  const claim = await claimFingerprint(db, parsed.fingerprint, services.clock, { sameBody: true });
  try {
    return { claim, prepared: await prepare(services, definition, params, caller.organization, { atVote: false }) };
  } catch (error) {
    await claim.settle(error, true);
    throw error;
  }
}

/** decide (again) → execute → persist, in one transaction; then respond. */
async function executeAndPersist(submission: Submission, prepared: Preparation, claim: Claim | undefined): Promise<ActivityOutcome> {
  const { services, definition, parsed, caller, params, vote, parsedTransactions, trail } = submission;
  const { principal, organization, now } = caller;
  const activityId = uuidv7();
  // Asked for at the top level (the API's field) or inside parameters (where @turnkey/sdk-server puts it).
  const generateAppProofs = parsed.body.generateAppProofs === true || params.generateAppProofs === true;
  let tasks: AfterCommitTask[] = [];
  let queued = 0;
  let first: StoredVote | undefined;
  const row = await services.db.transaction(async (tx) => {
    first = await newVote(tx, activityId, "VOTE_SELECTION_APPROVED", vote);
    const { decision, requirements, velocity } = await decideSubmission(tx, { definition, params, ...caller, parsedTransactions }, first); // decide, again, in the transaction
    if (decision.outcome === "allow" && definition.prepare && prepared === NOT_PREPARED) throw new DecisionChanged();
    // validate, when left to the transaction: before anything is written unless the activity runs now (then only if it fails).
    const validateNow = () => validateWithDefinition(services, definition, caller, params, parsedTransactions, tx);
    if (validationDeferred(definition) && decision.outcome !== "allow") await validateNow();
    let outcome: HandlerOutcome | undefined;
    if (decision.outcome === "allow") {
      const allowed = {
        id: activityId,
        requesterUserId: principal.user.id,
        requesterSessionProfileId: principal.sessionProfile?.id,
        byRootQuorum: decision.byRootQuorum === true,
        organization,
        definition,
        params,
        prepared: prepared === NOT_PREPARED ? undefined : prepared,
        validated: submission.validated,
        parsedTransactions,
      };
      const proofs = generateAppProofs ? proofContext(parsed.fingerprint, decision, [first]) : undefined;
      await velocity.lockCharges(tx);
      outcome = await runHandler(tx, services, allowed, now, vote.onError, proofs, "refuse"); // execute
      if (outcome.status === "ACTIVITY_STATUS_FAILED" && validationDeferred(definition)) await validateNow(); // its refusal, if any, comes first
      if (outcome.status === "ACTIVITY_STATUS_COMPLETED") await velocity.record(tx, activityId); // count it in the velocity controls
    }
    const row = newActivityRow(
      {
        id: activityId,
        organization_id: organization.id,
        type: definition.type,
        fingerprint: parsed.fingerprint,
        intent: { [definition.intentKey]: parsed.body.parameters as Record<string, unknown> },
        generate_app_proofs: generateAppProofs,
        created_at: now,
        updated_at: now,
      },
      decision,
      outcome,
    );
    // persist: bearer secrets redacted, and sealed while the activity waits, so only this answer carries them.
    const stored: ActivityRow = {
      ...row,
      intent: { [definition.intentKey]: redactedIntent(definition, parsed.body.parameters as Record<string, unknown>) },
      result: redactedResult(definition, row.result),
      sealed_secret_params:
        WAITING_STATUSES.has(row.status) && holdsIntentSecrets(definition, params)
          ? sealSecretParams(services.kek, activityId, params)
          : null,
    };
    trail.evaluations = decision.evaluations;
    const auditEvent = newActivityEvent(services, row, principal, decision.evaluations, submission.clientIp); // record (written by persist)
    // The activity's insert can leave with the COMMIT when no MFA requirement follows it and, as authentication read,
    // no one subscribes to its updates (one subscribing since is as if it had subscribed just after) nor will it add one.
    const commit = requirements.length === 0 && principal.activityUpdatesSubscribed === false && !definition.addsSubscribers;
    queued = await persistNewActivity(
      tx,
      stored,
      first,
      decision,
      auditEvent,
      () => (decision.outcome === "deny" ? `user ${principal.user.id} (${JSON.stringify(principal.user.name)}): ${decision.reason}` : ""),
      { releaseClaim: claim !== undefined, commit },
    );
    if (!commit) await recordRequirements(tx, activityId, requirements);
    claim?.releasedByInsert();
    tasks = outcome?.status === "ACTIVITY_STATUS_COMPLETED" ? outcome.afterCommit : [];
    return row;
  });
  afterCommit(services, queued > 0, tasks, vote.onError); // respond
  return { activity: activityRecord(row, [first!], principal.user.id) };
}

/** The same body again: the same activity — and, from another user while it waits (consensus, authenticators), their approval. */
async function answerSameBody(services: Services, existing: ActivityRow, vote: VoteInput): Promise<ActivityRecord> {
  if (
    WAITING_STATUSES.has(existing.status) &&
    !vote.principal.viaParent &&
    vote.principal.user.organizationId === existing.organization_id
  ) {
    const [voted] = await services.db.query("SELECT 1 FROM votes WHERE activity_id = $1 AND user_id = $2 AND NOT expired", [
      existing.id,
      vote.principal.user.id,
    ]);
    if (!voted) return castVote(services, existing, "VOTE_SELECTION_APPROVED", vote);
  }
  const record = await loadActivityRecord(services.db, "id", existing.id, vote.principal.user.id);
  if (!record) throw internalError(`activity ${existing.id} vanished`);
  return record;
}
