import type { Domain } from "../../operations/domain.js";
import { createWebhookEndpoint } from "./submit/create-webhook-endpoint.js";
import { deleteWebhookEndpoint } from "./submit/delete-webhook-endpoint.js";
import { listWebhookDeliveries } from "./query/list-webhook-deliveries.js";
import { listWebhookEndpoints } from "./query/list-webhook-endpoints.js";
import { updateWebhookEndpoint } from "./submit/update-webhook-endpoint.js";

export const webhooksDomain: Domain = {
  name: "webhooks",
  activities: [createWebhookEndpoint, updateWebhookEndpoint, deleteWebhookEndpoint],
  queries: [listWebhookEndpoints, listWebhookDeliveries],
};
