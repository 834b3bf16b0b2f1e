import type { Migration } from "./migration.js";

export const wallets: Migration = {
  version: 2,
  name: "wallets, wallet accounts, private keys, private key tags, import keys",
  sql: `
-- An HD wallet: its BIP-39 mnemonic (English words) sealed under the key-encryption key.
CREATE TABLE wallets (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  name text NOT NULL,
  sealed_mnemonic text NOT NULL,
  exported boolean NOT NULL DEFAULT false,
  imported boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX wallets_org_name ON wallets(organization_id, name);

-- A derived account; its private key is kept sealed so signing needs no re-derivation.
CREATE TABLE wallet_accounts (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  wallet_id text NOT NULL REFERENCES wallets(id) ON DELETE CASCADE,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  curve text NOT NULL,
  path_format text NOT NULL,
  path text NOT NULL,
  address_format text NOT NULL,
  address text NOT NULL,
  public_key text NOT NULL,
  sealed_private_key text NOT NULL,
  name text,
  exported boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX wallet_accounts_derivation ON wallet_accounts(wallet_id, curve, path, address_format);
CREATE INDEX wallet_accounts_org_address ON wallet_accounts(organization_id, address);

CREATE TABLE private_keys (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  name text NOT NULL,
  curve text NOT NULL,
  public_key text NOT NULL,
  sealed_private_key text NOT NULL,
  exported boolean NOT NULL DEFAULT false,
  imported boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX private_keys_org_name ON private_keys(organization_id, name);

CREATE TABLE private_key_addresses (
  private_key_id text NOT NULL REFERENCES private_keys(id) ON DELETE CASCADE,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  position integer NOT NULL,
  format text NOT NULL,
  address text NOT NULL,
  PRIMARY KEY (private_key_id, position)
);
CREATE INDEX private_key_addresses_org_address ON private_key_addresses(organization_id, address);

CREATE TABLE private_key_tags (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX private_key_tags_org_name ON private_key_tags(organization_id, name);

CREATE TABLE private_key_tag_assignments (
  tag_id text NOT NULL REFERENCES private_key_tags(id) ON DELETE CASCADE,
  private_key_id text NOT NULL REFERENCES private_keys(id) ON DELETE CASCADE,
  PRIMARY KEY (tag_id, private_key_id)
);

-- The one-time P-256 key a user's import bundle is encrypted to (init_import_* → import_*).
CREATE TABLE import_keys (
  user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind text NOT NULL,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  sealed_private_key text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (user_id, kind)
);
`,
};
