import { createHash } from "node:crypto";
import { v7 as uuidv7 } from "uuid";
import { authenticate } from "../auth/authenticate.js";
import { assertCredentialMayUse } from "../auth/credential-scope.js";
import { ApiError, internalError, invalidArgument, permissionDenied, unauthenticated } from "../errors.js";
import { decide } from "../policy/decide.js";
import { checkDuplicateKeys } from "../schema/duplicate-keys.js";
import { checkJsonLimits } from "../schema/json-limits.js";
import { validate } from "../schema/validate.js";
import type { Services } from "../services.js";
import { isUniqueViolation } from "../store/database.js";
import { requireOrganization } from "../domains/organizations/organizations.js";
import type { ActivityDefinition } from "./activity-definition.js";
import { emitActivityUpdateTo } from "../domains/webhooks/outbox.js";
import { insertNewActivity } from "../domains/activities/insert-new-activity.js";
import {
  approvalOf,
  castVote,
  findByFingerprint,
  newVote,
  proofContext,
  runAfterCommit,
  runHandler,
  type AfterCommitTask,
  type StoredVote,
  type VoteInput,
} from "./votes.js";
import { activityRecord, loadActivityRecord, type ActivityRecord, type ActivityRow } from "../domains/activities/record.js";

const MAX_AGE_MS = 60 * 60 * 1000;
const MAX_FUTURE_MS = 5 * 60 * 1000;

export interface ActivityOutcome {
  activity: ActivityRecord;
}

export type RequestHeaders = Record<string, string | string[] | undefined>;

export function fingerprintOf(rawBody: Buffer): string {
  return `sha256:${createHash("sha256").update(rawBody).digest("hex")}`;
}

/** Parses the body as a JSON object, or fails with 400 naming the problem (bad JSON, NUL, too deep, a duplicate key). */
export function parseJsonBody(rawBody: Buffer): Record<string, unknown> {
  const text = rawBody.toString("utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalidArgument(`request body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalidArgument("request body must be a JSON object");
  checkJsonLimits(value);
  checkDuplicateKeys(text);
  return value as Record<string, unknown>;
}

export function requireOrganizationId(body: Record<string, unknown>): string {
  const organizationId = body.organizationId;
  if (typeof organizationId !== "string" || organizationId.length === 0) {
    throw invalidArgument("organizationId: required, a non-empty string", "INVALID_ORGANIZATION_ID", [
      { field: "organizationId", description: "required, a non-empty string" },
    ]);
  }
  return organizationId;
}

function checkLiveness(timestampMs: unknown, now: Date): void {
  if (typeof timestampMs !== "string" || !/^[0-9]{1,16}$/.test(timestampMs)) {
    throw invalidArgument("timestampMs: required, a string of epoch milliseconds", "REQUEST_INVALID", [
      { field: "timestampMs", description: "required, a string of epoch milliseconds" },
    ]);
  }
  const age = now.getTime() - Number(timestampMs);
  if (age > MAX_AGE_MS) {
    throw unauthenticated(`stale request: timestampMs ${timestampMs} is more than one hour old`, "INVALID_TIME");
  }
  if (age < -MAX_FUTURE_MS) {
    throw unauthenticated(
      `request from the future: timestampMs ${timestampMs} is more than five minutes ahead of the server clock`,
      "INVALID_TIME",
    );
  }
}

/**
 * The activity pipeline: parse → authenticate → check liveness and type → validate → idempotency
 * by fingerprint (a different user resubmitting the same body approves it) → prepare (the definition's
 * CPU-heavy work, outside any transaction) → then, in ONE
 * transaction, the activity row, its first vote, the policy decision and, when allowed, the handler.
 * A denial rolls everything back (403); a business failure leaves a FAILED activity.
 */
export async function submitActivity(
  services: Services,
  definition: ActivityDefinition,
  headers: RequestHeaders,
  rawBody: Buffer,
  onError: (error: unknown) => void,
  clientIp?: string,
): Promise<ActivityOutcome> {
  const now = services.clock();
  const body = parseJsonBody(rawBody);
  const organizationId = requireOrganizationId(body);
  const { principal, organization } = await authenticate(services.db, headers, rawBody, organizationId, now, {
    clientIp,
    withSnapshot: true,
  });
  assertCredentialMayUse(principal, definition.operation);

  checkLiveness(body.timestampMs, now);
  if (body.type !== definition.type) {
    throw invalidArgument(
      `type: ${JSON.stringify(body.type)} does not match /public/v1/submit/${definition.operation}, which expects ${definition.type}`,
      "REQUEST_INVALID",
      [{ field: "type", description: `must be ${definition.type}` }],
    );
  }
  const params = validate(definition.parameters, body.parameters, "parameters") as Record<string, unknown>;
  const vote = { principal, rawBody, now, onError };

  if (definition.vote) {
    const target = await findByFingerprint(services.db, String(params.fingerprint), organization.id);
    return { activity: await castVote(services, target, definition.vote, vote) };
  }

  const fingerprint = fingerprintOf(rawBody);
  if (principal.viaParent && !definition.parentMayInitiate) {
    // A parent's user may still read back an activity with this body; it may not create one.
    const [existing] = await services.db.query<ActivityRow>("SELECT * FROM activities WHERE fingerprint = $1", [fingerprint]);
    if (existing) return { activity: await resubmitted(services, existing, vote) };
    throw permissionDenied(
      `user ${principal.user.id} (${JSON.stringify(principal.user.name)}) belongs to the parent organization ${principal.user.organizationId}, which has read-only access to sub-organization ${organization.id}: ${definition.type} is not authorized`,
    );
  }
  try {
    await definition.validate?.({ db: services.db, services, organization, requesterUserId: principal.user.id, now }, params);
  } catch (error) {
    // A resubmitted body answers its activity, even when what the first run changed no longer validates.
    const [existing] = await services.db.query<ActivityRow>("SELECT * FROM activities WHERE fingerprint = $1", [fingerprint]);
    if (existing) return { activity: await resubmitted(services, existing, vote) };
    throw error;
  }
  let prepared: unknown;
  if (definition.prepare) {
    // A retried body is the same activity: no need to derive its keys again.
    const [existing] = await services.db.query<ActivityRow>("SELECT * FROM activities WHERE fingerprint = $1", [fingerprint]);
    if (existing) return { activity: await resubmitted(services, existing, vote) };
    // CPU-heavy work and network calls (key generation, derivation, an issuer's keys) before the transaction:
    // the store is not held meanwhile.
    prepared = await definition.prepare(services, params, organization);
  }
  const activityId = uuidv7();
  const intent = { [definition.intentKey]: body.parameters as Record<string, unknown> };
  // Asked for at the top level (the API's field) or inside parameters (where @turnkey/sdk-server puts it).
  const generateAppProofs = body.generateAppProofs === true || params.generateAppProofs === true;
  let afterCommit: AfterCommitTask[] = [];
  let queued = 0;
  try {
    let first: StoredVote | undefined;
    const row = await services.db.transaction(async (tx) => {
      afterCommit = [];
      first = await newVote(tx, activityId, "VOTE_SELECTION_APPROVED", vote);
      // A parent-initiated authentication activity is the parent's decision: its policies, its root quorum.
      const deciding = principal.viaParent ? await requireOrganization(tx, principal.user.organizationId) : organization;
      const decision = await decide(tx, {
        definition,
        params,
        organization: deciding,
        approvals: [{ ...approvalOf(first), isRoot: principal.user.isRoot }],
        now,
      });
      const row: ActivityRow = {
        id: activityId,
        organization_id: organization.id,
        type: definition.type,
        status: decision.outcome === "consensus-needed" ? "ACTIVITY_STATUS_CONSENSUS_NEEDED" : "ACTIVITY_STATUS_FAILED",
        fingerprint,
        intent,
        result: {},
        failure: null,
        generate_app_proofs: generateAppProofs,
        app_proofs: [],
        created_at: now,
        updated_at: now,
      };
      if (decision.outcome === "allow") {
        const proofs = generateAppProofs ? proofContext(fingerprint, decision, [first]) : undefined;
        const outcome = await runHandler(
          tx,
          services,
          {
            id: activityId,
            requesterUserId: principal.user.id,
            byRootQuorum: decision.byRootQuorum === true,
            organization,
            definition,
            params,
            prepared,
          },
          now,
          onError,
          proofs,
        );
        row.status = outcome.status;
        if (outcome.status === "ACTIVITY_STATUS_COMPLETED") {
          Object.assign(row, { result: outcome.result, app_proofs: outcome.appProofs });
          afterCommit = outcome.afterCommit;
        } else row.failure = outcome.failure.toBody();
      }
      // The idempotency check is this insert: an activity with the same fingerprint wins, and this one rolls back.
      const subscribers = await insertNewActivity(tx, row, first, decision.evaluations);
      if (!subscribers) throw new AlreadySubmitted();
      if (decision.outcome === "deny") {
        throw permissionDenied(`user ${principal.user.id} (${JSON.stringify(principal.user.name)}): ${decision.reason}`);
      }
      queued = await emitActivityUpdateTo(tx, subscribers, row, now, [first]);
      return row;
    });
    if (queued > 0) services.webhooks.wake();
    runAfterCommit(afterCommit, onError);
    return { activity: activityRecord(row, [first!], principal.user.id) };
  } catch (error) {
    // The same body submitted before, or concurrently: the other request created the activity. The
    // handler runs before the insert that detects it, so it may have refused input the first run changed.
    if (error instanceof AlreadySubmitted || isUniqueViolation(error) || error instanceof ApiError) {
      const [raced] = await services.db.query<ActivityRow>("SELECT * FROM activities WHERE fingerprint = $1", [fingerprint]);
      if (raced) return { activity: await resubmitted(services, raced, vote) };
    }
    throw error;
  }
}

/** Rolls back a transaction whose activity turned out to exist already (same fingerprint). */
class AlreadySubmitted extends Error {}

/** The same body again: the same activity — and, from another user while it waits for consensus, their approval. */
async function resubmitted(services: Services, existing: ActivityRow, vote: VoteInput): Promise<ActivityRecord> {
  if (
    existing.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED" &&
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
