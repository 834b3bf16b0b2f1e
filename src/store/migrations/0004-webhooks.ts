import type { Migration } from "./migration.js";

export const webhooks: Migration = {
  version: 4,
  name: "webhook endpoints, subscriptions and the delivery outbox",
  sql: `
CREATE TABLE webhook_endpoints (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  url text NOT NULL,
  name text NOT NULL,
  is_active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX webhook_endpoints_org ON webhook_endpoints(organization_id);

CREATE TABLE webhook_subscriptions (
  endpoint_id text NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  position integer NOT NULL,
  event_type text NOT NULL,
  filters_json text,
  is_active boolean NOT NULL DEFAULT true,
  PRIMARY KEY (endpoint_id, position)
);

-- The outbox: written in the transaction of the change it reports, delivered by the worker. The id is
-- the event id (stable across retries); seq orders deliveries per endpoint; claimed_until is the lease
-- of the worker sending it, so a crashed worker's claim is picked up again.
CREATE TABLE webhook_deliveries (
  id text PRIMARY KEY,
  endpoint_id text NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  organization_id text NOT NULL,
  event_type text NOT NULL,
  body text NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  status text NOT NULL DEFAULT 'PENDING',
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  claimed_until timestamptz,
  last_status_code integer,
  last_error text,
  created_at timestamptz NOT NULL,
  delivered_at timestamptz
);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries(endpoint_id, seq) WHERE status = 'PENDING';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries(endpoint_id, created_at);
`,
};
