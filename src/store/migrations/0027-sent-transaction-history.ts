import type { Migration } from "./migration.js";

export const sentTransactionHistory: Migration = {
  version: 27,
  name: "sent transactions' block time and fee, for the transaction history",
  sql: `
ALTER TABLE send_transactions ADD COLUMN block_timestamp timestamptz;
ALTER TABLE send_transactions ADD COLUMN fee text;
`,
};
