import type { Migration } from "./migration.js";

export const spentOidcTokens: Migration = {
  version: 23,
  name: "spent oidc tokens",
  sql: `
-- OIDC tokens that proved something (an OAuth provider's registration, a login, an MFA step), each by its
-- issuer's jti or else the hash of its signed claims: a token proves once. The one exception, kept in
-- \`usage\`: a token that registered a provider (USAGE_TYPE_REGISTRATION) may then log in once to that
-- same organization (@turnkey/core's signUpWithOauth signs up and logs in with one token).
CREATE TABLE spent_oidc_tokens (
  token_key text PRIMARY KEY,
  usage text NOT NULL,
  organization_id text NOT NULL,
  spent_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);

-- The OAuth provider whose token logged this session key in (oauth_login, oauth), and the email that token
-- vouched for: the key's first accepted stamp shows that its holder holds the key the token's nonce binds,
-- which proves the provider (and that email, when it is the user's).
ALTER TABLE api_keys ADD COLUMN proves_oauth_provider_id text;
ALTER TABLE api_keys ADD COLUMN proves_verified_email text;
`,
};
