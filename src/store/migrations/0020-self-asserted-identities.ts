import type { Migration } from "./migration.js";

export const selfAssertedIdentities: Migration = {
  version: 20,
  name: "self-asserted identities",
  sql: `
-- An OAuth provider a user registered on themselves from bare claims (no verified token): like a contact they
-- asserted about themselves, it logs nobody in until proven, and a proven registration of the identity replaces it.
ALTER TABLE oauth_providers ADD COLUMN self_asserted boolean NOT NULL DEFAULT false;
`,
};
