import type { Migration } from "./migration.js";

export const keyring: Migration = {
  version: 37,
  name: "keyring",
  sql: `
-- How the keyring's data keys are wrapped: by which seal provider (STRONGROOM_SEAL), and what a sealed process must
-- know before it holds any key (the Shamir threshold and share count it answers in /strongroom/v1/seal-status; the
-- recovery key's public half, so every new version is wrapped to it too). One row.
CREATE TABLE keyring_seal (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  provider text NOT NULL CHECK (provider IN ('file', 'pkcs11', 'shamir', 'awskms')),
  key_shares integer,
  key_threshold integer,
  recovery_public_key text,
  recovery_shares integer,
  recovery_threshold integer,
  created_at timestamptz NOT NULL
);

-- The data-encryption keys, by version, each wrapped by the seal provider's root (and, when a recovery key exists,
-- to it as well). Values are sealed under the newest version once its seal_from has passed (every process has read
-- it by then); from reseal_from on, values under older versions are moved to it in the background, and an older
-- version is deleted once no value names it.
CREATE TABLE keyring (
  version integer PRIMARY KEY CHECK (version > 0),
  wrapped_key text NOT NULL,
  wrapped_by text NOT NULL,
  recovery_wrapped_key text,
  seal_from timestamptz NOT NULL,
  reseal_from timestamptz NOT NULL,
  created_at timestamptz NOT NULL
);

-- As for the sealed columns (migration 0032): ANALYZE never copies a wrapped key into pg_statistic, where a retired
-- version would outlive its row.
ALTER TABLE keyring ALTER COLUMN wrapped_key SET STATISTICS 0, ALTER COLUMN recovery_wrapped_key SET STATISTICS 0;
`,
};
