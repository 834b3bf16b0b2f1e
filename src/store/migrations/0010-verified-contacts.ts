import type { Migration } from "./migration.js";

export const verifiedContacts: Migration = {
  version: 10,
  name: "verified contacts",
  sql: `
-- When a user's email or phone number was last proven by a verification token (a signup, otp_login,
-- update_user_email / update_user_phone_number with a token); NULL when it never was or has changed since.
-- list_verified_suborgs finds sub-organizations by these.
ALTER TABLE users ADD COLUMN email_verified_at timestamptz;
ALTER TABLE users ADD COLUMN phone_number_verified_at timestamptz;
`,
};
