import type { Migration } from "./migration.js";

export const authProxy: Migration = {
  version: 9,
  name: "auth proxy configurations",
  sql: `
-- One auth proxy per top-level organization. Its id is the X-Auth-Proxy-Config-Id clients send. The proxy
-- acts as an ordinary (non-root) user of the organization with a P-256 API key whose private half is sealed
-- under the key-encryption key; policy_id names the policy that grants that user its activities.
CREATE TABLE auth_proxy_configs (
  id text PRIMARY KEY,
  organization_id text NOT NULL UNIQUE REFERENCES organizations(id) ON DELETE CASCADE,
  user_id text NOT NULL,
  public_key text NOT NULL,
  sealed_private_key text NOT NULL,
  policy_id text NOT NULL,
  enabled boolean NOT NULL,
  settings jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
`,
};
