import type { Migration } from "./migration.js";

export const listOrderIndexes: Migration = {
  version: 39,
  name: "sub-organizations listed in order from an index",
  sql: `
-- list_suborgs reads a page of an organization's sub-organizations oldest first, (created_at, id) after a cursor: in
-- this order from the index, a page reads its rows only, instead of every sub-organization of the parent sorted each
-- time. The index on parent_id alone (the foreign key's cascade, the filters) is this one's prefix.
CREATE INDEX organizations_parent_created ON organizations (parent_id, created_at, id);
DROP INDEX organizations_parent;
`,
};
