import type { Migration } from "./migration.js";

export const otp: Migration = {
  version: 8,
  name: "OTP codes and consumed verification tokens",
  sql: `
-- One row per code sent (init_otp, init_otp_auth). The code itself is never stored: only an HMAC of it
-- under a per-code key, sealed with the key-encryption key together with the code's HPKE target key.
CREATE TABLE otp_codes (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  flow text NOT NULL,
  otp_type text NOT NULL,
  contact text NOT NULL,
  user_identifier text,
  sealed_secret text NOT NULL,
  code_hmac text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX otp_codes_contact ON otp_codes (organization_id, lower(contact), expires_at);
CREATE INDEX otp_codes_user_identifier ON otp_codes (organization_id, user_identifier, created_at);

-- Verification tokens already used to log in (or recover): each is good for one use.
CREATE TABLE consumed_verification_tokens (
  token_id text PRIMARY KEY,
  usage text NOT NULL,
  organization_id text NOT NULL,
  consumed_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
`,
};
