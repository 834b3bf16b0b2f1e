import type { Migration } from "./migration.js";

export const foundation: Migration = {
  version: 1,
  name: "organizations, users, credentials, activities",
  sql: `
CREATE TABLE organizations (
  id text PRIMARY KEY,
  name text NOT NULL,
  parent_id text REFERENCES organizations(id) ON DELETE CASCADE,
  root_quorum_threshold integer NOT NULL DEFAULT 1,
  -- organization features as the API lists them: [{name, value}]
  features jsonb NOT NULL DEFAULT '[]'::jsonb,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX organizations_parent ON organizations(parent_id);

CREATE TABLE users (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name text NOT NULL,
  email text,
  phone_number text,
  is_root boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX users_org_name ON users(organization_id, name);
CREATE INDEX users_email ON users(lower(email));

CREATE TABLE user_tags (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX user_tags_org_name ON user_tags(organization_id, name);

CREATE TABLE user_tag_assignments (
  tag_id text NOT NULL REFERENCES user_tags(id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  PRIMARY KEY (tag_id, user_id)
);
CREATE INDEX user_tag_assignments_user ON user_tag_assignments(user_id);

CREATE TABLE api_keys (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name text NOT NULL,
  public_key text NOT NULL,
  curve text NOT NULL,
  credential_type text NOT NULL,
  expiration_seconds text,
  expires_at timestamptz,
  -- creation order, also among keys created by one activity (same created_at)
  seq bigint GENERATED ALWAYS AS IDENTITY,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX api_keys_org_public_key ON api_keys(organization_id, public_key);
CREATE INDEX api_keys_public_key ON api_keys(public_key);
CREATE INDEX api_keys_user ON api_keys(user_id);

CREATE TABLE authenticators (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name text NOT NULL,
  credential_id text NOT NULL,
  public_key text NOT NULL,
  aaguid text NOT NULL,
  attestation_type text NOT NULL,
  transports jsonb NOT NULL,
  model text NOT NULL,
  sign_count bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX authenticators_org_credential ON authenticators(organization_id, credential_id);
CREATE INDEX authenticators_credential ON authenticators(credential_id);
CREATE INDEX authenticators_user ON authenticators(user_id);

CREATE TABLE oauth_providers (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name text NOT NULL,
  issuer text NOT NULL,
  audience text NOT NULL,
  subject text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX oauth_providers_identity ON oauth_providers(organization_id, issuer, subject, audience);
CREATE INDEX oauth_providers_user ON oauth_providers(user_id);

CREATE TABLE invitations (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  sender_user_id text NOT NULL,
  receiver_user_name text NOT NULL,
  receiver_email text NOT NULL,
  receiver_user_tags jsonb NOT NULL,
  access_type text NOT NULL,
  status text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX invitations_org ON invitations(organization_id);

-- Activities outlive what they act on (a deleted sub-organization keeps its history),
-- so organization_id is deliberately not a foreign key.
CREATE TABLE activities (
  id text PRIMARY KEY,
  organization_id text NOT NULL,
  type text NOT NULL,
  status text NOT NULL,
  fingerprint text NOT NULL,
  intent jsonb NOT NULL,
  result jsonb NOT NULL,
  failure jsonb,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX activities_fingerprint ON activities(fingerprint);
CREATE INDEX activities_org_created ON activities(organization_id, created_at DESC, id DESC);

CREATE TABLE votes (
  id text PRIMARY KEY,
  activity_id text NOT NULL REFERENCES activities(id) ON DELETE CASCADE,
  user_id text NOT NULL,
  user_snapshot jsonb NOT NULL,
  selection text NOT NULL,
  message text NOT NULL,
  public_key text NOT NULL,
  signature text NOT NULL,
  scheme text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX votes_activity ON votes(activity_id);

-- Server-held keys (signer, encryption), sealed under the key-encryption key.
CREATE TABLE server_secrets (
  name text PRIMARY KEY,
  sealed text NOT NULL,
  created_at timestamptz NOT NULL
);
`,
};
