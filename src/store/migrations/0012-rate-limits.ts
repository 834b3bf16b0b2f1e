import type { Migration } from "./migration.js";

export const rateLimits: Migration = {
  version: 12,
  name: "rate limits",
  sql: `
-- One row per event a budget counts (a wrong OTP guess, an OTP code issued), under the budget's key
-- (e.g. "otp-guess:<organization>:<contact>"). A budget is the number of rows of its key in a sliding
-- window; rows older than the window are deleted when the key is next counted. Kept in the database so
-- that every process of a cluster counts against the same budget.
CREATE TABLE rate_limit_events (
  key text NOT NULL,
  at timestamptz NOT NULL
);
CREATE INDEX rate_limit_events_key_at ON rate_limit_events (key, at);
`,
};
