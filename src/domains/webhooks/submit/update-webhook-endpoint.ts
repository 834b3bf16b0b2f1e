import { Type } from "@sinclair/typebox";
import { loadWebhookEndpoint, WebhookEndpointRecord } from "../../../records/webhook-endpoint.js";
import { Id, Name } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { checkEndpointUrl } from "../endpoints.js";

export const updateWebhookEndpoint = defineActivity({
  operation: "update_webhook_endpoint",
  type: "ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT",
  intentKey: "updateWebhookEndpointIntent",
  resultKey: "updateWebhookEndpointResult",
  result: Type.Object({ endpointId: Type.String(), webhookEndpoint: WebhookEndpointRecord }),
  sdkMethod: "updateWebhookEndpoint",
  summary: "Change a webhook endpoint's URL or name, or pause and resume it (isActive)",
  addsSubscribers: true,
  resource: "WEBHOOK_ENDPOINT",
  action: "UPDATE",
  parameters: Type.Object({
    endpointId: Id(),
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    name: Type.Optional(Name()),
    isActive: Type.Optional(Type.Boolean()),
  }),
  // A new URL's host is resolved (DNS) once the activity is allowed, outside its transaction.
  prepare: async (services, { url }) => ({ checkedUrl: url === undefined ? undefined : await checkEndpointUrl(services, url) }),
  async execute({ tx, organization, now }, { endpointId, name, isActive }, { checkedUrl }) {
    await loadWebhookEndpoint(tx, organization.id, endpointId);
    if (checkedUrl !== undefined) await tx.query("UPDATE webhook_endpoints SET url = $2 WHERE id = $1", [endpointId, checkedUrl]);
    if (name !== undefined) await tx.query("UPDATE webhook_endpoints SET name = $2 WHERE id = $1", [endpointId, name]);
    if (isActive !== undefined) await tx.query("UPDATE webhook_endpoints SET is_active = $2 WHERE id = $1", [endpointId, isActive]);
    await tx.query("UPDATE webhook_endpoints SET updated_at = $2 WHERE id = $1", [endpointId, now]);
    return { endpointId, webhookEndpoint: await loadWebhookEndpoint(tx, organization.id, endpointId) };
  },
});
