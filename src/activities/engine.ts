import { createHash } from "node:crypto";
import { v7 as uuidv7 } from "uuid";
import { authenticate } from "../auth/authenticate.js";
import { internalError, invalidArgument, permissionDenied, unauthenticated } from "../errors.js";
import { decide } from "../policy/decide.js";
import { checkJsonLimits } from "../schema/json-limits.js";
import { validate } from "../schema/validate.js";
import type { Services } from "../services.js";
import { isUniqueViolation } from "../store/database.js";
import { requireOrganization } from "../records/organizations.js";
import type { ActivityDefinition } from "./definition.js";
import { approvalOf, castVote, runAfterCommit, type AfterCommitTask, findByFingerprint, insertVote, proofContext, recordEvaluations, runHandler, setStatus, type VoteInput } from "./voting.js";
import { activityRecord, loadActivityRecord, type ActivityRecord, type ActivityRow, type VoteRow } from "./record.js";

const MAX_AGE_MS = 60 * 60 * 1000;
const MAX_FUTURE_MS = 5 * 60 * 1000;

export interface ActivityOutcome {
  activity: ActivityRecord;
}

export type RequestHeaders = Record<string, string | string[] | undefined>;

export function fingerprintOf(rawBody: Buffer): string {
  return `sha256:${createHash("sha256").update(rawBody).digest("hex")}`;
}

/** Parses the body as a JSON object, or fails with 400 naming the problem. */
export function parseJsonBody(rawBody: Buffer): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(rawBody.toString("utf8"));
  } catch (error) {
    throw invalidArgument(`request body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalidArgument("request body must be a JSON object");
  checkJsonLimits(value);
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
    throw unauthenticated(`request from the future: timestampMs ${timestampMs} is more than five minutes ahead of the server clock`, "INVALID_TIME");
  }
}

/**
 * The activity pipeline: parse → authenticate → check liveness and type → validate → idempotency
 * by fingerprint (a different user resubmitting the same body approves it) → then, in ONE
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
  const { principal, organization } = await authenticate(services.db, headers, rawBody, organizationId, now, { clientIp });

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
  const activityId = uuidv7();
  const intent = { [definition.intentKey]: body.parameters as Record<string, unknown> };
  // Asked for at the top level (the API's field) or inside parameters (where @turnkey/sdk-server puts it).
  const generateAppProofs = body.generateAppProofs === true || params.generateAppProofs === true;
  const afterCommit: AfterCommitTask[] = [];
  try {
    let firstVote: VoteRow | undefined;
    const row = await services.db.transaction(async (tx) => {
      // The idempotency check is the insert itself: an activity with this fingerprint wins the conflict.
      const inserted = await tx.query(
        `INSERT INTO activities (id, organization_id, type, status, fingerprint, intent, result, failure, generate_app_proofs, created_at, updated_at)
         VALUES ($1, $2, $3, 'ACTIVITY_STATUS_PENDING', $4, $5::jsonb, '{}'::jsonb, NULL, $6, $7, $7)
         ON CONFLICT (fingerprint) DO NOTHING RETURNING id`,
        [activityId, organization.id, definition.type, fingerprint, JSON.stringify(intent), generateAppProofs, now],
      );
      if (inserted.length === 0) throw new AlreadySubmitted();
      const first = await insertVote(tx, activityId, "VOTE_SELECTION_APPROVED", vote);
      firstVote = first;
      // A parent-initiated authentication activity is the parent's decision: its policies, its root quorum.
      const deciding = principal.viaParent ? await requireOrganization(tx, principal.user.organizationId) : organization;
      const decision = await decide(tx, { definition, params, organization: deciding, approvals: [{ ...approvalOf(first), isRoot: principal.user.isRoot }], now });
      await recordEvaluations(tx, activityId, organization.id, first.id, decision, now);
      if (decision.outcome === "deny") {
        throw permissionDenied(`user ${principal.user.id} (${JSON.stringify(principal.user.name)}): ${decision.reason}`);
      }
      if (decision.outcome === "consensus-needed") return setStatus(tx, activityId, "ACTIVITY_STATUS_CONSENSUS_NEEDED", now);
      const proofs = generateAppProofs ? proofContext(fingerprint, decision, [first]) : undefined;
      return runHandler(tx, services, { id: activityId, requesterUserId: principal.user.id, organization, definition, params }, now, onError, proofs, afterCommit);
    });
    services.webhooks.wake();
    runAfterCommit(afterCommit, onError);
    // A new activity has exactly one vote so far: the one this transaction wrote.
    return { activity: activityRecord(row, [firstVote!], principal.user.id) };
  } catch (error) {
    // The same body submitted before, or concurrently: the other request created the activity.
    if (error instanceof AlreadySubmitted || isUniqueViolation(error)) {
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
  if (existing.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED" && !vote.principal.viaParent && vote.principal.user.organizationId === existing.organization_id) {
    const [voted] = await services.db.query("SELECT 1 FROM votes WHERE activity_id = $1 AND user_id = $2 AND NOT expired", [existing.id, vote.principal.user.id]);
    if (!voted) return castVote(services, existing, "VOTE_SELECTION_APPROVED", vote);
  }
  const record = await loadActivityRecord(services.db, "id", existing.id, vote.principal.user.id);
  if (!record) throw internalError(`activity ${existing.id} vanished`);
  return record;
}
