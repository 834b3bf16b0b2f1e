import type { Migration } from "./migration.js";

export const rateLimitSweep: Migration = {
  version: 24,
  name: "rate limit sweep",
  sql: `
-- The background sweep deletes budget events older than every window by time alone (a contact never counted
-- again is never pruned by its key): this index lets each bounded batch find them without reading the table.
CREATE INDEX rate_limit_events_at ON rate_limit_events (at);
`,
};
