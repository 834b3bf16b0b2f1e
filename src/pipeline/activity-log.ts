import type { FastifyBaseLogger } from "fastify";
import { ApiError, PolicyDenied } from "../errors.js";
import type { SubmitDefinition } from "../pipeline/registry.js";
import type { ActivityOutcome } from "../pipeline/steps/respond.js";
import { isVoteDefinition } from "../operations/vote-definition.js";
import type { Metrics } from "../metrics.js";

const CONSENSUS_NEEDED = "ACTIVITY_STATUS_CONSENSUS_NEEDED";

const secondsOf = (timestamp: { seconds: string; nanos: string }) => Number(timestamp.seconds) + Number(timestamp.nanos) / 1e9;

/**
 * One log line and the metrics per submitted activity: its organization, type, id, status and how long the
 * submission took. Never its parameters (they may carry key material, codes or contact details) nor a failure's
 * message (it may quote them): a failure is logged by its code. A FAILED activity logs at warn, not as a success.
 */
export function recordActivity(
  log: FastifyBaseLogger,
  metrics: Metrics,
  definition: SubmitDefinition,
  outcome: ActivityOutcome,
  durationMs: number,
): void {
  const { activity } = outcome;
  const status = activity.status.replace(/^ACTIVITY_STATUS_/, "");
  const fields = {
    organizationId: activity.organizationId,
    activityId: activity.id,
    activityType: activity.type,
    operation: definition.operation,
    status,
    durationMs: Math.round(durationMs * 10) / 10,
    ...(activity.failure ? { failureCode: activity.failure.code } : {}),
  };
  const message = isVoteDefinition(definition) ? `vote on activity: ${status}` : `activity ${status}`;
  if (activity.status === "ACTIVITY_STATUS_FAILED") log.warn(fields, message);
  else log.info(fields, message);
  if (isVoteDefinition(definition)) {
    if (activity.status !== CONSENSUS_NEEDED) {
      const waited = secondsOf(activity.updatedAt) - secondsOf(activity.createdAt);
      metrics.consensusWait.observe({ type: activity.type, status }, Math.max(0, waited));
    }
  } else {
    metrics.activities.inc({ type: definition.type, status });
  }
}

/** A submission answered with an error and no activity: logged (4xx at info; 5xx the error handler logs) and counted. */
export function recordRefusal(
  log: FastifyBaseLogger,
  metrics: Metrics,
  definition: SubmitDefinition,
  error: unknown,
  durationMs: number,
): void {
  const code = error instanceof ApiError ? (error.turnkeyErrorCode ?? String(error.code)) : "INTERNAL";
  metrics.refusals.inc({ operation: definition.operation, code });
  if (error instanceof PolicyDenied) metrics.policyDenials.inc({ type: definition.type });
  if (error instanceof ApiError && error.httpStatus < 500) {
    log.info(
      {
        operation: definition.operation,
        activityType: definition.type,
        httpStatus: error.httpStatus,
        code,
        policyDenied: error instanceof PolicyDenied,
        durationMs: Math.round(durationMs * 10) / 10,
      },
      "activity refused",
    );
  }
}
