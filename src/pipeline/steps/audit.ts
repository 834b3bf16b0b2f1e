import type { Principal } from "../../auth/principal.js";
import { insertAuditEvent, recordAuditEvent, type AuditEvent } from "../../audit/record.js";
import type { JsonValue } from "../../audit/canonical-json.js";
import { ApiError, type ErrorBody } from "../../errors.js";
import type { PolicyOutcome } from "../../policy/decision.js";
import type { ActivityRow } from "../../records/activity.js";
import type { Services } from "../../services.js";
import { isConnectionFailure, type Queryable } from "../../store/database.js";

/**
 * Step "record" (src/audit/): every submitted activity and its outcome, every vote, and every refusal goes into
 * the audit log — an activity or a vote in the transaction that writes it, a refusal (nothing else is written)
 * in a short transaction of its own. What an entry holds of the request: the user and credential that signed it,
 * the activity's type and fingerprint, the policies' outcomes, the client's address. Never the parameters
 * (key material, codes, contact details live there), nor messages as written: a failure's message, which may
 * quote the input, goes in as an HMAC under the audit key.
 */

/** What the log records of a request that may still be refused, filled in as the pipeline learns it. */
export interface AuditTrail {
  fingerprint?: string;
  principal?: Principal;
  organizationId?: string;
  evaluations?: PolicyOutcome[];
}

/** Who signed: the user, the credential (its id and type, never a secret), and how it authenticated. */
export function actorOf(principal: Principal): JsonValue {
  return {
    userId: principal.user.id,
    userOrganizationId: principal.user.organizationId,
    credentialId: principal.credential.id,
    credentialType: principal.credential.type,
    authenticationType: principal.authenticationType,
    ...(principal.sessionProfile ? { sessionProfileId: principal.sessionProfile.id } : {}),
  };
}

const evaluationsOf = (evaluations: PolicyOutcome[]): JsonValue => evaluations.map((e) => ({ policyId: e.policyId, outcome: e.outcome }));

/** An error's code as the API reports it (its Turnkey error code, else the gRPC code), and its message's HMAC. */
function failureOf(services: Services, failure: ErrorBody): JsonValue {
  const code = failure.details.find((d) => typeof d.turnkeyErrorCode === "string")?.turnkeyErrorCode;
  return { code: typeof code === "string" ? code : String(failure.code), messageHmac: services.audit.hmac(failure.message) };
}

/**
 * A new activity's event: its status (completed, failed, or waiting for consensus or authenticators). None when
 * recording is off. The statement writing the activity writes it too, in the same transaction.
 */
export function newActivityEvent(
  services: Services,
  row: ActivityRow,
  principal: Principal,
  evaluations: PolicyOutcome[],
  clientIp: string | undefined,
): AuditEvent | undefined {
  if (!services.audit.recording) return undefined;
  return {
    organizationId: row.organization_id,
    time: row.created_at,
    type: "activity",
    details: {
      activityId: row.id,
      activityType: row.type,
      fingerprint: row.fingerprint,
      status: row.status,
      requester: actorOf(principal),
      evaluations: evaluationsOf(evaluations),
      ...(row.failure ? { failure: failureOf(services, row.failure) } : {}),
      clientIp,
    },
  };
}

/** A vote on an activity waiting for consensus, in its transaction, with the activity's status after it. */
export async function recordVoteEvent(
  tx: Queryable,
  services: Services,
  activity: ActivityRow,
  vote: { selection: string; principal: Principal; now: Date; clientIp?: string },
  status: string,
  evaluations: PolicyOutcome[] | undefined,
  failure: ApiError | undefined,
): Promise<void> {
  await recordAuditEvent(tx, services.audit, {
    organizationId: activity.organization_id,
    time: vote.now,
    type: "vote",
    details: {
      activityId: activity.id,
      activityType: activity.type,
      fingerprint: activity.fingerprint,
      selection: vote.selection,
      status,
      voter: actorOf(vote.principal),
      ...(evaluations ? { evaluations: evaluationsOf(evaluations) } : {}),
      ...(failure ? { failure: failureOf(services, failure.toBody()) } : {}),
      clientIp: vote.clientIp,
    },
  });
}

/**
 * A refused submission or query (bad input, a refused stamp, failed authentication, a policy denial, a vote not
 * taken), in a transaction of its own. Recorded only when the organization it names exists: a request naming
 * none is anyone's to send, and recording it would let anyone fill the log. Past the refusal budget of its
 * organization and requester (src/audit/refusal-budget.ts), only counted: the integrator writes the count.
 */
export async function recordRefusalEvent(
  services: Services,
  request: { kind: "activity" | "vote" | "query"; operation: string; type?: string; clientIp?: string; onError(error: unknown): void },
  trail: AuditTrail,
  error: unknown,
): Promise<void> {
  const organizationId = trail.organizationId;
  if (!services.audit.recording || !organizationId || isConnectionFailure(error)) return;
  const apiError = error instanceof ApiError ? error : undefined;
  const httpStatus = apiError?.httpStatus ?? 500;
  const requester = trail.principal ? { key: trail.principal.credential.id, entry: actorOf(trail.principal) } : undefined;
  const now = services.clock();
  if (!services.audit.refusals.admit(organizationId, requester, { kind: request.kind, operation: request.operation, httpStatus }, now))
    return;
  const event: AuditEvent = {
    organizationId,
    time: now,
    type: `${request.kind}.refused`,
    details: {
      operation: request.operation,
      activityType: request.type,
      fingerprint: trail.fingerprint,
      httpStatus,
      failure: apiError ? failureOf(services, apiError.toBody()) : { code: "INTERNAL" },
      requester: requester?.entry,
      ...(trail.evaluations ? { evaluations: evaluationsOf(trail.evaluations) } : {}),
      clientIp: request.clientIp,
    },
  };
  try {
    if (await insertAuditEvent(services.db, event, { ifOrganizationExists: true })) services.audit.wake();
    else services.audit.refusals.forget(organizationId, requester?.key);
  } catch (failure) {
    request.onError(failure);
  }
}

/** A query answered (recorded only with STRONGROOM_AUDIT_QUERIES), in a transaction of its own. */
export async function recordQueryEvent(
  services: Services,
  operation: string,
  principal: Principal,
  organizationId: string,
  clientIp: string | undefined,
): Promise<void> {
  if (!services.audit.recordQueries) return;
  await recordAuditEvent(services.db, services.audit, {
    organizationId,
    time: services.clock(),
    type: "query",
    details: { operation, requester: actorOf(principal), clientIp },
  });
  services.audit.wake();
}
