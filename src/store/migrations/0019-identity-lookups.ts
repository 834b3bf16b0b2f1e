import type { Migration } from "./migration.js";

export const identityLookups: Migration = {
  version: 19,
  name: "identity lookups",
  sql: `
-- An attested stamp (X-Stamp-Attested) naming a parent organization finds its user in a sub-organization by
-- a verified phone number or a proven OAuth identity: these indexes serve that lookup from the identity's
-- side (as users_email does for emails), so its cost is that of the rows holding the identity, never a walk
-- over the parent's sub-organizations.
CREATE INDEX users_phone_number ON users(phone_number) WHERE phone_number IS NOT NULL;
CREATE INDEX oauth_providers_issuer_subject ON oauth_providers(issuer, subject);
`,
};
