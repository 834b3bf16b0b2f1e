import { Type } from "@sinclair/typebox";
import { loadWebhookEndpoints, WebhookEndpointRecord } from "../../../records/webhook-endpoint.js";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";

export const listWebhookEndpoints = defineQuery({
  operation: "list_webhook_endpoints",
  sdkMethod: "listWebhookEndpoints",
  summary: "Every webhook endpoint of the organization with its subscriptions",
  body: Type.Object({ organizationId: Id() }),
  result: Type.Object({ webhookEndpoints: Type.Array(WebhookEndpointRecord) }),
  async execute({ organization, services }) {
    return { webhookEndpoints: await loadWebhookEndpoints(services.db, organization.id) };
  },
});
