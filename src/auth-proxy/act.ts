import { stampWithApiKey } from "../auth/api-key-stamper.js";
import { submitActivity } from "../pipeline/submit-activity.js";
import { activitiesByOperation } from "../pipeline/registry.js";
import { isVoteDefinition } from "../operations/vote-definition.js";
import { ApiError, failedPrecondition, GrpcCode, type ErrorBody } from "../errors.js";
import { runQuery } from "../pipeline/run-query.js";
import { queriesByOperation } from "../pipeline/registry.js";
import type { Services } from "../services.js";
import { proxyKeyContext, type AuthProxyConfigRow } from "../domains/auth-proxy-config/configs.js";
import type { FastifyBaseLogger } from "fastify";
import { recordActivity, recordRefusal } from "../pipeline/activity-log.js";

/**
 * The auth proxy acting as a client of Strongroom's own API: every request is built and stamped
 * exactly as @turnkey/api-key-stamper would stamp it, with the proxy's key, and goes through the
 * same pipeline as a request from outside (authentication, policies, idempotency, webhooks, audit).
 */
export interface ProxyActor {
  services: Services;
  config: AuthProxyConfigRow;
  /** Logs a handler failure of a submitted activity. */
  onError(error: unknown): void;
  /** The request's log: each activity the proxy submits is logged and counted like one from outside. */
  log: FastifyBaseLogger;
}

function proxyKey(actor: ProxyActor) {
  const privateKey = actor.services.kek.open(actor.config.sealed_private_key, proxyKeyContext(actor.config.id));
  return { publicKey: actor.config.public_key, privateKey };
}

/** An activity's failure, given back to the proxy's caller with the status the API would have used. */
function failureError(failure: ErrorBody | null, activityId: string): ApiError {
  if (!failure) return new ApiError(GrpcCode.INTERNAL, `activity ${activityId} failed without a reason`, "INTERNAL");
  return ApiError.fromBody(failure);
}

/** Submits `operation` to `organizationId` as the proxy user and answers the activity's result (and app proofs, when asked for). */
export async function submitAsProxy(
  actor: ProxyActor,
  operation: string,
  organizationId: string,
  parameters: Record<string, unknown>,
  options: { generateAppProofs?: boolean } = {},
): Promise<{ result: Record<string, unknown>; appProofs: unknown[] }> {
  const definition = activitiesByOperation.get(operation);
  if (!definition || isVoteDefinition(definition)) {
    throw new ApiError(
      GrpcCode.UNAVAILABLE,
      `this Strongroom has no ${operation} activity, which this auth proxy endpoint needs`,
      "UNIMPLEMENTED",
      [],
      501,
    );
  }
  const body = JSON.stringify({
    type: definition.type,
    timestampMs: String(actor.services.stampClock().getTime()),
    organizationId,
    parameters,
    ...(options.generateAppProofs ? { generateAppProofs: true } : {}),
  });
  const headers = { "content-type": "application/json", "x-stamp": stampWithApiKey(body, proxyKey(actor)) };
  const started = performance.now();
  let outcome;
  try {
    outcome = await submitActivity(actor.services, definition, { headers, rawBody: Buffer.from(body, "utf8"), onError: actor.onError });
  } catch (error) {
    recordRefusal(actor.log, actor.services.metrics, definition, error, performance.now() - started);
    throw error;
  }
  recordActivity(actor.log, actor.services.metrics, definition, outcome, performance.now() - started);
  const { activity } = outcome;
  if (activity.status === "ACTIVITY_STATUS_COMPLETED") {
    return { result: (activity.result[definition.resultKey] ?? {}) as Record<string, unknown>, appProofs: activity.appProofs ?? [] };
  }
  if (activity.status === "ACTIVITY_STATUS_FAILED") throw failureError(activity.failure, activity.id);
  throw failedPrecondition(
    `activity ${activity.id} (${definition.type}) submitted by the auth proxy of organization ${actor.config.organization_id} is ${activity.status}: the organization's policies require more approvals than the proxy user's`,
    "CONSENSUS_NEEDED",
  );
}

/** Runs a query as the proxy user. */
export async function queryAsProxy(actor: ProxyActor, operation: string, input: Record<string, unknown>): Promise<Record<string, unknown>> {
  const definition = queriesByOperation.get(operation);
  if (!definition) throw new ApiError(GrpcCode.UNAVAILABLE, `this Strongroom has no ${operation} query`, "UNIMPLEMENTED", [], 501);
  const body = JSON.stringify(input);
  const headers = { "content-type": "application/json", "x-stamp": stampWithApiKey(body, proxyKey(actor)) };
  return runQuery(actor.services, definition, headers, Buffer.from(body, "utf8"));
}
