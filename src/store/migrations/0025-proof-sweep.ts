import type { Migration } from "./migration.js";

export const proofSweep: Migration = {
  version: 25,
  name: "proof sweep",
  sql: `
-- The background sweep deletes spent proofs once their token has expired: these indexes let each bounded batch
-- find them without reading the table.
CREATE INDEX consumed_verification_tokens_expires_at ON consumed_verification_tokens (expires_at);
CREATE INDEX spent_oidc_tokens_expires_at ON spent_oidc_tokens (expires_at);
`,
};
