import type { Migration } from "./migration.js";

export const passkeyRelyingParty: Migration = {
  version: 13,
  name: "passkey relying party",
  sql: `
-- The relying party a passkey belongs to: hex of the rpIdHash (sha256 of the RP ID) its attestation was made
-- for. Assertions must carry the same rpIdHash. NULL for passkeys registered before this migration: the
-- first assertion that verifies records its rpIdHash (bind on first use).
ALTER TABLE authenticators ADD COLUMN rp_id_hash text;
`,
};
