import type { Migration } from "./migration.js";

export const mfaPolicies: Migration = {
  version: 17,
  name: "mfa policies",
  sql: `
-- A user's MFA policies: when \`condition\` (policy language) holds for an activity the user submits or approves,
-- the steps of \`required_methods\` ([{any: [{type, id?}]}]) must be proven by the credentials that stamp the
-- user's approvals before the activity runs. \`position\` is the API's \`order\` (lower is evaluated first).
CREATE TABLE mfa_policies (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name text NOT NULL,
  condition text NOT NULL,
  required_methods jsonb NOT NULL,
  position bigint NOT NULL,
  notes text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX mfa_policies_user ON mfa_policies(user_id, position, created_at, id);

-- What MFA an activity asks of each user who voted on it, fixed at that user's first vote (the submission, for
-- its requester): the policy that applied and its steps as they were, so that changing or deleting the policy
-- later neither lifts nor changes what a waiting activity still needs.
CREATE TABLE activity_mfa_requirements (
  activity_id text NOT NULL REFERENCES activities(id) ON DELETE CASCADE,
  user_id text NOT NULL,
  mfa_policy_id text NOT NULL,
  required_methods jsonb NOT NULL,
  position integer NOT NULL,
  PRIMARY KEY (activity_id, user_id, mfa_policy_id)
);
`,
};
