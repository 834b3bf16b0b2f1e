import type { ActivityDefinition } from "../definition.js";
import { createWebhookEndpoint } from "./create-webhook-endpoint.js";
import { deleteWebhookEndpoint } from "./delete-webhook-endpoint.js";
import { updateWebhookEndpoint } from "./update-webhook-endpoint.js";

export const webhookActivities: ActivityDefinition[] = [createWebhookEndpoint, updateWebhookEndpoint, deleteWebhookEndpoint];
