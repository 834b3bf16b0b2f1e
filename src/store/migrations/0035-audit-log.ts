import type { Migration } from "./migration.js";

export const auditLog: Migration = {
  version: 35,
  name: "audit log: events waiting for the integrator, the Merkle log, its stored subtrees and signed checkpoints",
  sql: `
-- One event, written by the transaction that made the change it records (src/audit/record.ts): committed with it or
-- rolled back with it. seq orders the events one integration pass takes; it is not the log's order across passes
-- (a transaction that wrote earlier may commit later), which the integrator sets by taking only committed rows.
-- No foreign key: the log outlives what it names (a deleted organization keeps its entries).
CREATE TABLE audit_pending (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organization_id text,
  event text NOT NULL
);

-- The log: entry idx is leaf idx of the RFC 6962 tree, its exact bytes (canonical JSON holding idx itself and the
-- root of the tree before it). organization_id: the tenant that may read it (NULL: the server's own events).
CREATE TABLE audit_entries (
  idx bigint PRIMARY KEY,
  organization_id text,
  entry text NOT NULL
);
CREATE INDEX audit_entries_organization ON audit_entries(organization_id, idx);

-- Every complete subtree of the tree: node (level, idx) covers leaves [idx * 2^level, (idx + 1) * 2^level).
-- Proofs read O(log n) of them; nothing verifies against them (verification recomputes from the entries).
CREATE TABLE audit_hashes (
  level smallint NOT NULL,
  idx bigint NOT NULL,
  hash bytea NOT NULL,
  PRIMARY KEY (level, idx)
);

-- Checkpoints signed by the audit key (C2SP tlog-checkpoint notes), one per tree size signed.
CREATE TABLE audit_checkpoints (
  size bigint PRIMARY KEY,
  note text NOT NULL,
  signed_at timestamptz NOT NULL
);

-- The log's head and the integrator's lease: one row. integrator is the holder's session name
-- (src/store/process-session.ts); recording, the STRONGROOM_AUDIT setting the last server started with.
CREATE TABLE audit_log_state (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  size bigint NOT NULL DEFAULT 0,
  integrator text,
  lease_until timestamptz,
  recording boolean
);
INSERT INTO audit_log_state (id) VALUES (true);
`,
};
