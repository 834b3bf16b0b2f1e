import { Type } from "@sinclair/typebox";
import { ApiError, GrpcCode } from "../../../errors.js";
import { defineActivity } from "../../../operations/activity-definition.js";

/**
 * Strongroom's own activity (not in the upstream API), at /strongroom/v1/submit/seal_server: seal every process of
 * the server. Only the root quorum of a top-level organization (one `init` created, not a sub-organization) may do
 * it; a quorum of more than one waits for its approvals like any activity (approve_activity). It records the
 * request; the process that served it drops its keys right after, every other process unsealed before it within
 * STRONGROOM_KEYRING_POLL_MS (custody.refresh).
 * A process unseals again when it restarts (the file provider reads its key at start).
 */
export const sealServer = defineActivity({
  operation: "seal_server",
  type: "ACTIVITY_TYPE_SEAL_SERVER",
  intentKey: "sealServerIntent",
  resultKey: "sealServerResult",
  result: Type.Object({ requestedAt: Type.String({ description: "when the seal was requested (ISO 8601)" }) }),
  sdkMethod: "sealServer",
  summary: "Seal every Strongroom process: each drops every key from memory until it is unsealed again",
  resource: "ORGANIZATION",
  action: "UPDATE",
  rootQuorumOnly: true,
  parameters: Type.Object({}),
  async validate({ organization }) {
    if (organization.parent_id !== null) {
      throw new ApiError(
        GrpcCode.PERMISSION_DENIED,
        `organization ${organization.id} is a sub-organization: only a top-level organization's root quorum may seal the server`,
        "REQUEST_NOT_AUTHORIZED",
      );
    }
  },
  async execute({ tx, organization, activityId, now, services, afterCommit }) {
    await tx.query("INSERT INTO seal_requests (activity_id, organization_id, requested_at) VALUES ($1, $2, $3)", [
      activityId,
      organization.id,
      now,
    ]);
    // This process seals at once; the others of a cluster read the request at their next poll.
    afterCommit(async () => services.custodyWorker.wake());
    return { requestedAt: now.toISOString() };
  },
});
