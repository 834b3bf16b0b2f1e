/**
 * Who receives an organization's webhook events: active endpoints with an active subscription to the event type,
 * owned by the organization or its parent. The organization and the event type are SQL expressions (placeholders,
 * or a column), so the lookup can ride along in another statement.
 */
export interface Subscriber {
  endpoint_id: string;
  organization_id: string;
  filters_json: string | null;
}

const subscribedFrom = (organizationId: string, eventType: string) =>
  `FROM webhook_endpoints e JOIN webhook_subscriptions s ON s.endpoint_id = e.id
           WHERE e.is_active AND s.is_active AND s.event_type = ${eventType}
             AND (e.organization_id = ${organizationId} OR e.organization_id = (SELECT parent_id FROM organizations WHERE id = ${organizationId}))`;

/** Those endpoints, in delivery order. */
export function subscribersSql(organizationId: string, eventType: string): string {
  return `SELECT e.id AS endpoint_id, e.organization_id, s.filters_json
            ${subscribedFrom(organizationId, eventType)}
           ORDER BY e.seq, s.position`;
}

/** Whether there is any such endpoint, as a boolean SQL expression. */
export const anySubscriberSql = (organizationId: string, eventType: string): string =>
  `EXISTS (SELECT 1 ${subscribedFrom(organizationId, eventType)})`;
