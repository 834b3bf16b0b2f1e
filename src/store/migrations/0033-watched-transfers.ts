import type { Migration } from "./migration.js";

export const watchedTransfers: Migration = {
  version: 33,
  name: "the block watcher: token transfers, the other party of each change, a lease per chain",
  sql: `
-- The watcher also records ERC-20 Transfer logs of the tokens CHAIN_ASSETS lists: which asset moved ('' for the
-- chain's native coin, else the token contract, lowercase), the log it came from (-1 for a native transfer, which
-- has none; one transaction may move a token several times) and the other party of the change (the history's
-- counterparty).
ALTER TABLE balance_events ADD COLUMN asset text NOT NULL DEFAULT '';
ALTER TABLE balance_events ADD COLUMN log_index integer NOT NULL DEFAULT -1;
ALTER TABLE balance_events ADD COLUMN counterparty text;
ALTER TABLE balance_events DROP CONSTRAINT balance_events_organization_id_chain_tx_hash_address_operat_key;
ALTER TABLE balance_events ADD CONSTRAINT balance_events_one_change UNIQUE (organization_id, chain, tx_hash, address, operation, asset, log_index);
CREATE INDEX balance_events_history ON balance_events (organization_id, chain, address, block_number);

-- Every configured EVM chain is watched; the process whose lease on a chain's cursor is current reads its blocks
-- (outside any transaction), so the processes of a cluster neither read a chain twice nor wait on each other.
ALTER TABLE chain_cursors ADD COLUMN claimed_until timestamptz;
`,
};
