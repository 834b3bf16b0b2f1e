import type { Migration } from "./migration.js";

export const policies: Migration = {
  version: 3,
  name: "policies, smart contract interfaces, policy evaluations, vote credentials and expiry, app proofs",
  sql: `
CREATE TABLE policies (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  name text NOT NULL,
  effect text NOT NULL,
  condition text,
  consensus text,
  time text,
  notes text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX policies_org_name ON policies(organization_id, name);

CREATE TABLE smart_contract_interfaces (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  address text NOT NULL,
  type text NOT NULL,
  label text NOT NULL,
  notes text NOT NULL DEFAULT '',
  interface text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX smart_contract_interfaces_org_address ON smart_contract_interfaces(organization_id, lower(address));

-- Each decision, per vote: [{policyId, outcome}].
CREATE TABLE policy_evaluations (
  id text PRIMARY KEY,
  activity_id text NOT NULL,
  organization_id text NOT NULL,
  vote_id text NOT NULL,
  evaluations jsonb NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX policy_evaluations_activity ON policy_evaluations(activity_id);

-- The credential that cast a vote (the policy language's credentials keyword), and approvals that
-- lapsed because consensus was not reached within 24 hours of the first one.
ALTER TABLE votes ADD COLUMN credential jsonb;
ALTER TABLE votes ADD COLUMN expired boolean NOT NULL DEFAULT false;

-- App proofs asked for with generateAppProofs, signed by the server when the activity executes.
ALTER TABLE activities ADD COLUMN generate_app_proofs boolean NOT NULL DEFAULT false;
ALTER TABLE activities ADD COLUMN app_proofs jsonb NOT NULL DEFAULT '[]'::jsonb;
`,
};
