import type { Migration } from "./migration.js";

export const sealRequests: Migration = {
  version: 38,
  name: "seal requests",
  sql: `
-- Sealing on demand (ACTIVITY_TYPE_SEAL_SERVER, approved by a top-level organization's root quorum): every process
-- that was unsealed before requested_at drops its keys when it sees the row (it looks every STRONGROOM_KEYRING_POLL_MS).
CREATE TABLE seal_requests (
  activity_id text PRIMARY KEY,
  organization_id text NOT NULL,
  requested_at timestamptz NOT NULL
);
CREATE INDEX seal_requests_requested_at ON seal_requests (requested_at);
`,
};
