import { Type } from "@sinclair/typebox";
import { loadWebhookEndpoint } from "../../../records/webhook-endpoint.js";
import { toApiTimestamp, ApiTimestamp } from "../../../schema/timestamp.js";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";

export const listWebhookDeliveries = defineQuery({
  operation: "list_webhook_deliveries",
  sdkMethod: "listWebhookDeliveries",
  strongroomOnly: true,
  summary: "Strongroom only (no SDK method): an endpoint's recent deliveries, newest first, with status, attempts and last error",
  body: Type.Object({ organizationId: Id(), endpointId: Id(), limit: Type.Optional(Type.String({ pattern: "^[0-9]{1,3}$" })) }),
  result: Type.Object({
    deliveries: Type.Array(
      Type.Object({
        eventId: Type.String(),
        eventType: Type.String(),
        status: Type.String(),
        attempts: Type.Integer(),
        lastStatusCode: Type.Optional(Type.Integer()),
        lastError: Type.Optional(Type.String()),
        createdAt: ApiTimestamp,
        nextAttemptAt: Type.Optional(ApiTimestamp),
        deliveredAt: Type.Optional(ApiTimestamp),
      }),
    ),
  }),
  async execute({ organization, services }, { endpointId, limit }) {
    await loadWebhookEndpoint(services.db, organization.id, endpointId);
    const rows = await services.db.query<{
      id: string;
      event_type: string;
      status: string;
      attempts: number;
      last_status_code: number | null;
      last_error: string | null;
      next_attempt_at: Date;
      created_at: Date;
      delivered_at: Date | null;
    }>(
      `SELECT id, event_type, status, attempts, last_status_code, last_error, next_attempt_at, created_at, delivered_at
         FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY seq DESC LIMIT $2`,
      [endpointId, Math.min(Number(limit ?? 50), 100)],
    );
    return {
      deliveries: rows.map((r) => ({
        eventId: r.id,
        eventType: r.event_type,
        status: `DELIVERY_STATUS_${r.status}`,
        attempts: r.attempts,
        ...(r.last_status_code !== null ? { lastStatusCode: r.last_status_code } : {}),
        ...(r.last_error !== null ? { lastError: r.last_error } : {}),
        createdAt: toApiTimestamp(r.created_at),
        ...(r.status === "PENDING" ? { nextAttemptAt: toApiTimestamp(r.next_attempt_at) } : {}),
        ...(r.delivered_at ? { deliveredAt: toApiTimestamp(r.delivered_at) } : {}),
      })),
    };
  },
});
