import { Type } from "@sinclair/typebox";
import { v7 as uuidv7 } from "uuid";
import { invalidArgument } from "../../../errors.js";
import { loadWebhookEndpoint, WebhookEndpointRecord } from "../../../records/webhook-endpoint.js";
import { Name, StringEnum } from "../../../schema/common.js";
import { EVENT_TYPES } from "../filters.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { checkEndpointUrl, checkSubscription } from "../endpoints.js";

export const createWebhookEndpoint = defineActivity({
  operation: "create_webhook_endpoint",
  type: "ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT",
  intentKey: "createWebhookEndpointIntent",
  resultKey: "createWebhookEndpointResult",
  result: Type.Object({ endpointId: Type.String(), webhookEndpoint: WebhookEndpointRecord }),
  sdkMethod: "createWebhookEndpoint",
  summary:
    "Register a webhook endpoint with its subscriptions (ACTIVITY_UPDATES, BALANCE_CONFIRMED_UPDATES, BALANCE_FINALIZED_UPDATES, SEND_TRANSACTION_STATUS_UPDATES)",
  addsSubscribers: true,
  resource: "WEBHOOK_ENDPOINT",
  action: "CREATE",
  parameters: Type.Object({
    url: Type.String({ minLength: 1, maxLength: 2048 }),
    name: Name(),
    subscriptions: Type.Array(
      Type.Object({
        eventType: StringEnum(EVENT_TYPES),
        filtersJson: Type.Optional(Type.String({ maxLength: 16384 })),
        isActive: Type.Optional(Type.Boolean()),
      }),
      { maxItems: 10 },
    ),
  }),
  validate: async (_ctx, { subscriptions }) => {
    if (subscriptions.length === 0)
      throw invalidArgument("subscriptions: at least one subscription is required", [
        { field: "subscriptions", description: "at least one" },
      ]);
  },
  // The host is resolved (DNS) once the activity is allowed, outside its transaction.
  prepare: async (services, { url }) => ({ checkedUrl: await checkEndpointUrl(services, url) }),
  async execute({ tx, organization, now }, { name, subscriptions }, { checkedUrl }) {
    subscriptions.forEach((s, i) => checkSubscription(organization, s.eventType, s.filtersJson, `subscriptions[${i}]`));
    const endpointId = uuidv7();
    await tx.query(
      "INSERT INTO webhook_endpoints (id, organization_id, url, name, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)",
      [endpointId, organization.id, checkedUrl, name, now],
    );
    for (const [position, s] of subscriptions.entries()) {
      await tx.query(
        "INSERT INTO webhook_subscriptions (endpoint_id, position, event_type, filters_json, is_active) VALUES ($1, $2, $3, $4, $5)",
        [endpointId, position, s.eventType, s.filtersJson ?? null, s.isActive ?? true],
      );
    }
    return { endpointId, webhookEndpoint: await loadWebhookEndpoint(tx, organization.id, endpointId) };
  },
});
