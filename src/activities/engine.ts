import { createHash, randomUUID } from "node:crypto";
import { v7 as uuidv7 } from "uuid";
import { authenticate, type Principal } from "../auth/authenticate.js";
import { ApiError, GrpcCode, internalError, invalidArgument, unauthenticated, alreadyExists } from "../errors.js";
import { decide } from "../policy/decide.js";
import { loadUserRecord } from "../records/users.js";
import { validate } from "../schema/validate.js";
import type { Services } from "../services.js";
import { isUniqueViolation, type Queryable } from "../store/database.js";
import type { ActivityDefinition } from "./definition.js";
import { activityRecord, loadActivityRecord, type ActivityRecord, type ActivityRow, type VoteRow } from "./record.js";

const MAX_AGE_MS = 60 * 60 * 1000;
const MAX_FUTURE_MS = 5 * 60 * 1000;

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

interface ActivityInsert {
  id: string;
  organizationId: string;
  type: string;
  status: string;
  fingerprint: string;
  intent: Record<string, unknown>;
  now: Date;
}

async function insertActivity(tx: Queryable, a: ActivityInsert): Promise<ActivityRow> {
  const [row] = await tx.query<ActivityRow>(
    `INSERT INTO activities (id, organization_id, type, status, fingerprint, intent, result, failure, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, '{}'::jsonb, NULL, $7, $7) RETURNING *`,
    [a.id, a.organizationId, a.type, a.status, a.fingerprint, JSON.stringify(a.intent), a.now],
  );
  return row!;
}

async function insertVote(tx: Queryable, activityId: string, principal: Principal, rawBody: Buffer, now: Date): Promise<VoteRow> {
  const snapshot = await loadUserRecord(tx, principal.user.organizationId, principal.user.id);
  const [row] = await tx.query<VoteRow>(
    `INSERT INTO votes (id, activity_id, user_id, user_snapshot, selection, message, public_key, signature, scheme, created_at)
     VALUES ($1, $2, $3, $4::jsonb, 'VOTE_SELECTION_APPROVED', $5, $6, $7, $8, $9) RETURNING *`,
    [randomUUID(), activityId, principal.user.id, JSON.stringify(snapshot), rawBody.toString("utf8"), principal.stamp.publicKey, principal.stamp.signature, principal.stamp.scheme, now],
  );
  return row!;
}

/** Turns what a handler threw into the activity's failure; a unique-constraint race reads as "already exists". */
function failureOf(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (isUniqueViolation(error)) return alreadyExists("a resource with the same unique name or key already exists", "REQUEST_INVALID");
  return undefined;
}

export interface ActivityOutcome {
  activity: ActivityRecord;
}

/**
 * The activity pipeline: parse → authenticate → check liveness and type → validate → idempotency
 * by fingerprint → decide → execute in ONE transaction with the activity row and its vote.
 * A business failure rolls back the handler's writes and leaves a FAILED activity.
 */
export async function submitActivity(
  services: Services,
  definition: ActivityDefinition,
  headers: RequestHeaders,
  rawBody: Buffer,
  onError: (error: unknown) => void,
): Promise<ActivityOutcome> {
  const now = services.clock();
  const body = parseJsonBody(rawBody);
  const organizationId = requireOrganizationId(body);
  const { principal, organization } = await authenticate(services.db, headers, rawBody, organizationId, now);

  checkLiveness(body.timestampMs, now);
  if (body.type !== definition.type) {
    throw invalidArgument(
      `type: ${JSON.stringify(body.type)} does not match /public/v1/submit/${definition.operation}, which expects ${definition.type}`,
      "REQUEST_INVALID",
      [{ field: "type", description: `must be ${definition.type}` }],
    );
  }
  const params = validate(definition.parameters, body.parameters, "parameters");

  const fingerprint = fingerprintOf(rawBody);
  const existing = await loadActivityRecord(services.db, "fingerprint", fingerprint, principal.user.id);
  if (existing) return { activity: existing };

  const decision = decide(definition, params, principal, organization);
  const activityId = uuidv7();
  const intent = { [definition.intentKey]: body.parameters as Record<string, unknown> };
  const base = { id: activityId, organizationId: organization.id, type: definition.type, fingerprint, intent, now };

  let committed: { row: ActivityRow; votes: VoteRow[] };
  try {
    committed = await services.db.transaction(async (tx) => {
      if (decision.outcome === "consensus-needed") {
        const row = await insertActivity(tx, { ...base, status: "ACTIVITY_STATUS_CONSENSUS_NEEDED" });
        return { row, votes: [await insertVote(tx, activityId, principal, rawBody, now)] };
      }
      await insertActivity(tx, { ...base, status: "ACTIVITY_STATUS_PENDING" });
      const vote = await insertVote(tx, activityId, principal, rawBody, now);
      await tx.query("SAVEPOINT handler");
      let status = "ACTIVITY_STATUS_COMPLETED";
      let result: Record<string, unknown> = {};
      let failure: ApiError | undefined;
      try {
        result = { [definition.resultKey]: await definition.execute({ tx, organization, principal, activityId, now, services }, params) };
      } catch (error) {
        // Bad input found by the handler is the caller's error: 400, and the whole transaction
        // (activity row included) rolls back, as for input the schema refused.
        if (error instanceof ApiError && error.code === GrpcCode.INVALID_ARGUMENT) throw error;
        failure = failureOf(error);
        if (!failure) {
          onError(error);
          failure = internalError(`${definition.type} failed unexpectedly; the server log has the details (activity ${activityId})`);
        }
        status = "ACTIVITY_STATUS_FAILED";
        await tx.query("ROLLBACK TO SAVEPOINT handler");
      }
      const [row] = await tx.query<ActivityRow>("UPDATE activities SET status = $2, result = $3::jsonb, failure = $4::jsonb, updated_at = $5 WHERE id = $1 RETURNING *", [
        activityId,
        status,
        JSON.stringify(result),
        failure ? JSON.stringify(failure.toBody()) : null,
        now,
      ]);
      return { row: row!, votes: [vote] };
    });
  } catch (error) {
    // The same body submitted concurrently: the other request created the activity.
    if (isUniqueViolation(error)) {
      const raced = await loadActivityRecord(services.db, "fingerprint", fingerprint, principal.user.id);
      if (raced) return { activity: raced };
    }
    throw error;
  }
  return { activity: activityRecord(committed.row, committed.votes, principal.user.id) };
}
