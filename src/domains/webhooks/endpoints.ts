import { invalidArgument, permissionDenied } from "../../errors.js";
import type { OrganizationRow } from "../../records/organization.js";
import type { Services } from "../../services.js";
import { checkWebhookUrl, WebhookDestinationError } from "./destinations.js";
import { FilterError, parseFilters, type EventType } from "./filters.js";

export async function checkEndpointUrl(services: Services, url: string, field = "url"): Promise<string> {
  try {
    return (await checkWebhookUrl(url, services.webhooks.allowPrivate)).toString();
  } catch (error) {
    if (error instanceof WebhookDestinationError)
      throw invalidArgument(`${field}: ${error.message}`, "INVALID_WEBHOOK_URL", [{ field, description: error.message }]);
    throw error;
  }
}

/** Filters must parse for their event type; balance events belong to the billing (top) organization. */
export function checkSubscription(
  organization: OrganizationRow,
  eventType: EventType,
  filtersJson: string | undefined,
  field: string,
): void {
  try {
    parseFilters(eventType, filtersJson);
  } catch (error) {
    if (error instanceof FilterError)
      throw invalidArgument(`${field}.filtersJson: ${error.message}`, [{ field: `${field}.filtersJson`, description: error.message }]);
    throw error;
  }
  if (eventType !== "ACTIVITY_UPDATES" && organization.parent_id) {
    throw permissionDenied(
      `${field}.eventType: ${eventType} endpoints are managed from the billing organization ${organization.parent_id}, not sub-organization ${organization.id}`,
    );
  }
}
