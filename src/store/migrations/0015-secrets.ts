import type { Migration } from "./migration.js";

export const secrets: Migration = {
  version: 15,
  name: "secrets",
  sql: `
-- init_import_secrets: single-use P-256 target keys a client encrypts one secret each to. The private half is
-- sealed under the key-encryption key; import_secrets consumes the key it names. They lapse after an hour.
CREATE TABLE secret_import_keys (
  target_public_key text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  sealed_private_key text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX secret_import_keys_organization ON secret_import_keys(organization_id, created_at);

-- Arbitrary secrets (passwords, API keys), sealed like key material; static_properties is a JSON array of
-- {key, value} pairs bound at import and shown to policies as secret.static_properties.
CREATE TABLE secrets (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name text,
  sealed_value text NOT NULL,
  static_properties jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY
);
CREATE UNIQUE INDEX secrets_organization_name ON secrets(organization_id, name) WHERE name IS NOT NULL;
CREATE INDEX secrets_organization ON secrets(organization_id, seq);
`,
};
