import type { Migration } from "./migration.js";

export const sessionProfiles: Migration = {
  version: 16,
  name: "session profiles",
  sql: `
-- Named, immutable session profiles: a scope (a policy-language condition every activity submitted with a
-- session issued under the profile must satisfy) and a ceiling on those sessions' lifetime.
CREATE TABLE session_profiles (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name text NOT NULL,
  scope text NOT NULL,
  expiration_seconds text,
  notes text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY
);
CREATE UNIQUE INDEX session_profiles_organization_name ON session_profiles(organization_id, name);

-- The profile a login key (CREDENTIAL_TYPE_LOGIN) was issued under; its scope binds every request it signs.
ALTER TABLE api_keys ADD COLUMN session_profile_id text REFERENCES session_profiles(id) ON DELETE CASCADE;
`,
};
