import type { Migration } from "./migration.js";

export const activityClaims: Migration = {
  version: 14,
  name: "activity claims",
  sql: `
-- A request about to run an activity's preparation (outside calls: an authorization code redeemed, an issuer's
-- keys fetched; key derivation) claims the activity's fingerprint first, so that a concurrent or repeated request
-- with the same body, in any process, waits for it instead of repeating the outside call. The claim goes when
-- the activity (or the vote that executed it) is written; when the request ended in an error after its
-- preparation ran, the claim keeps that error (refusal) and the same body is answered with it.
CREATE TABLE activity_claims (
  fingerprint text PRIMARY KEY,
  claimed_at timestamptz NOT NULL,
  refusal jsonb
);
`,
};
