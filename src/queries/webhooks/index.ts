import type { QueryDefinition } from "../definition.js";
import { listWebhookDeliveries } from "./list-webhook-deliveries.js";
import { listWebhookEndpoints } from "./list-webhook-endpoints.js";

export const webhookQueries: QueryDefinition[] = [listWebhookEndpoints, listWebhookDeliveries];
