import type { Migration } from "./migration.js";

export const oauth2: Migration = {
  version: 7,
  name: "OAuth 2.0 credentials",
  sql: `
-- A client of an OAuth 2.0 provider (X, Discord). The secret is kept only sealed under the key-encryption
-- key; encrypted_client_secret is the envelope the client sent (encrypted to Strongroom's encryption key),
-- returned as the API's encryptedClientSecret.
CREATE TABLE oauth2_credentials (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  provider text NOT NULL,
  client_id text NOT NULL,
  encrypted_client_secret text NOT NULL,
  sealed_client_secret text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX oauth2_credentials_organization ON oauth2_credentials (organization_id, created_at);
`,
};
