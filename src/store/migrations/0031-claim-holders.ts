import type { Migration } from "./migration.js";

export const claimHolders: Migration = {
  version: 31,
  name: "claim holders",
  sql: `
-- The process holding an activity's claim (its session name, src/store/process-session.ts). A claim whose holder has
-- no session left (the process died during the preparation) is taken by the next request at once. Claims written
-- before this column existed have none and keep the old rule: waited for, and taken only once 65 minutes old.
ALTER TABLE activity_claims ADD COLUMN holder text;
`,
};
