import { Type } from "@sinclair/typebox";
import { notFound } from "../errors.js";
import type { Queryable } from "../store/database.js";

interface EndpointRow {
  id: string;
  organization_id: string;
  url: string;
  name: string;
  is_active: boolean;
}

interface SubscriptionRow {
  endpoint_id: string;
  event_type: string;
  filters_json: string | null;
  is_active: boolean;
}

export const WebhookEndpointRecord = Type.Object({
  endpointId: Type.String(),
  organizationId: Type.String(),
  url: Type.String(),
  name: Type.String(),
  isActive: Type.Boolean(),
  subscriptions: Type.Array(Type.Object({ eventType: Type.String(), filtersJson: Type.Optional(Type.String()), isActive: Type.Boolean() })),
});

/** Endpoints as the API lists them: {endpointId, organizationId, url, name, isActive, subscriptions}. */
export async function loadWebhookEndpoints(db: Queryable, organizationId: string, endpointId?: string): Promise<Record<string, unknown>[]> {
  const endpoints = await db.query<EndpointRow>(
    `SELECT id, organization_id, url, name, is_active FROM webhook_endpoints WHERE organization_id = $1 ${endpointId ? "AND id = $2" : ""} ORDER BY seq`,
    endpointId ? [organizationId, endpointId] : [organizationId],
  );
  if (endpoints.length === 0) return [];
  const subscriptions = await db.query<SubscriptionRow>(
    "SELECT endpoint_id, event_type, filters_json, is_active FROM webhook_subscriptions WHERE endpoint_id = ANY($1::text[]) ORDER BY endpoint_id, position",
    [endpoints.map((e) => e.id)],
  );
  return endpoints.map((e) => ({
    endpointId: e.id,
    organizationId: e.organization_id,
    url: e.url,
    name: e.name,
    isActive: e.is_active,
    subscriptions: subscriptions
      .filter((s) => s.endpoint_id === e.id)
      .map((s) => ({
        eventType: s.event_type,
        ...(s.filters_json !== null ? { filtersJson: s.filters_json } : {}),
        isActive: s.is_active,
      })),
  }));
}

export async function loadWebhookEndpoint(
  db: Queryable,
  organizationId: string,
  endpointId: string,
  field = "endpointId",
): Promise<Record<string, unknown>> {
  const [endpoint] = await loadWebhookEndpoints(db, organizationId, endpointId);
  if (!endpoint)
    throw notFound(
      `${field}: no webhook endpoint ${JSON.stringify(endpointId)} in organization ${organizationId}`,
      "WEBHOOK_ENDPOINT_NOT_FOUND",
    );
  return endpoint;
}
