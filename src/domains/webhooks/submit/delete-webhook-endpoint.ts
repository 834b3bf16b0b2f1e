import { Type } from "@sinclair/typebox";
import { loadWebhookEndpoint } from "../../../records/webhook-endpoint.js";
import { Id } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";

export const deleteWebhookEndpoint = defineActivity({
  operation: "delete_webhook_endpoint",
  type: "ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT",
  intentKey: "deleteWebhookEndpointIntent",
  resultKey: "deleteWebhookEndpointResult",
  result: Type.Object({ endpointId: Type.String() }),
  sdkMethod: "deleteWebhookEndpoint",
  summary: "Delete a webhook endpoint, its subscriptions and its undelivered events",
  resource: "WEBHOOK_ENDPOINT",
  action: "DELETE",
  parameters: Type.Object({ endpointId: Id() }),
  async execute({ tx, organization }, { endpointId }) {
    await loadWebhookEndpoint(tx, organization.id, endpointId);
    await tx.query("DELETE FROM webhook_endpoints WHERE id = $1", [endpointId]);
    return { endpointId };
  },
});
