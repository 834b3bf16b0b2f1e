import type { Migration } from "./migration.js";

export const balances: Migration = {
  version: 5,
  name: "balance watching: chain cursors and seen balance changes",
  sql: `
-- The last block read per chain (CAIP-2), so a restart resumes where the watcher stopped.
CREATE TABLE chain_cursors (
  chain text PRIMARY KEY,
  last_block bigint NOT NULL
);

-- One balance change of one account in one transaction; the unique key makes a change reported once,
-- whichever process saw it; finalized once its block is final.
CREATE TABLE balance_events (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  chain text NOT NULL,
  address text NOT NULL,
  tx_hash text NOT NULL,
  operation text NOT NULL,
  amount text NOT NULL,
  block_number bigint NOT NULL,
  block_hash text NOT NULL,
  block_timestamp timestamptz NOT NULL,
  finalized boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  UNIQUE (organization_id, chain, tx_hash, address, operation)
);
CREATE INDEX balance_events_unfinalized ON balance_events(chain, block_number) WHERE NOT finalized;
`,
};
