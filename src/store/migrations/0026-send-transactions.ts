import type { Migration } from "./migration.js";

export const sendTransactions: Migration = {
  version: 26,
  name: "sending transactions: the broadcaster's queue and the nonces allocated per sender",
  sql: `
-- One transaction Strongroom signed (or was given signed) and sends: the exact signed bytes are kept, so every
-- broadcast of it, after any restart, sends the same transaction. status: INITIALIZED (not yet accepted by a
-- node) -> BROADCASTING (a node accepted it) -> INCLUDED | FAILED. next_attempt_at and claimed_until are the
-- broadcaster's schedule and lease (claimed FOR UPDATE SKIP LOCKED by any process).
CREATE TABLE send_transactions (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  activity_id text NOT NULL,
  chain text NOT NULL,
  family text NOT NULL,
  from_address text NOT NULL,
  nonce bigint,
  signed_transaction text NOT NULL,
  tx_hash text NOT NULL,
  status text NOT NULL,
  error jsonb,
  block_number bigint,
  block_hash text,
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  broadcast_at timestamptz,
  next_attempt_at timestamptz NOT NULL,
  claimed_until timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX send_transactions_open ON send_transactions(next_attempt_at) WHERE status IN ('INITIALIZED', 'BROADCASTING');
CREATE INDEX send_transactions_sender ON send_transactions(chain, lower(from_address), nonce);
CREATE INDEX send_transactions_organization ON send_transactions(organization_id, seq);

-- The next nonce Strongroom gives a sender on a chain: allocations lock this row, so concurrent sends (from any
-- process) get consecutive nonces; the node's pending count raises it when the address also sends elsewhere.
CREATE TABLE evm_nonces (
  chain text NOT NULL,
  address text NOT NULL,
  next_nonce bigint NOT NULL,
  PRIMARY KEY (chain, address)
);
`,
};
