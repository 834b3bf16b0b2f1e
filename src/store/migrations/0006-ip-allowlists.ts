import type { Migration } from "./migration.js";

export const ipAllowlists: Migration = {
  version: 6,
  name: "IP allowlists",
  sql: `
-- One organization-level allowlist (public_key '') and one per API key (its public key).
CREATE TABLE ip_allowlists (
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  public_key text NOT NULL,
  enabled boolean NOT NULL,
  on_evaluation_error text NOT NULL DEFAULT 'DENY',
  rules jsonb NOT NULL DEFAULT '[]'::jsonb,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (organization_id, public_key)
);
`,
};
