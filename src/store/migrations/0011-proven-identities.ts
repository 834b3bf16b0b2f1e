import type { Migration } from "./migration.js";

export const provenIdentities: Migration = {
  version: 11,
  name: "proven identities",
  sql: `
-- A user's email, phone number or name that the user set on themselves without a verification token: it
-- is kept and shown, but no policy sees it and no login finds the user by it (nothing a user asserts
-- about themselves grants them anything). Set by someone else, or proven by a token, it is trusted.
ALTER TABLE users ADD COLUMN email_self_asserted boolean NOT NULL DEFAULT false;
ALTER TABLE users ADD COLUMN phone_number_self_asserted boolean NOT NULL DEFAULT false;
ALTER TABLE users ADD COLUMN name_self_asserted boolean NOT NULL DEFAULT false;

-- When an identity was first proven: an OAuth provider by a verified OIDC token for it (at registration
-- or at an oauth_login), an API key or a passkey by a stamp it made. The auth proxy's lookups across
-- sub-organizations find only proven identities, so registering someone else's first captures nobody.
ALTER TABLE oauth_providers ADD COLUMN proven_at timestamptz;
ALTER TABLE api_keys ADD COLUMN proven_at timestamptz;
ALTER TABLE authenticators ADD COLUMN proven_at timestamptz;

-- Keys and passkeys that already signed a vote (or a counter) have proven themselves.
UPDATE api_keys k SET proven_at = k.created_at
 WHERE EXISTS (SELECT 1 FROM votes v JOIN activities a ON a.id = v.activity_id WHERE a.organization_id = k.organization_id AND v.public_key = k.public_key);
UPDATE authenticators au SET proven_at = au.created_at
 WHERE au.sign_count > 0
    OR EXISTS (SELECT 1 FROM votes v JOIN activities a ON a.id = v.activity_id WHERE a.organization_id = au.organization_id AND v.public_key = au.public_key);
`,
};
