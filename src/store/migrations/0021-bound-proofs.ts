import type { Migration } from "./migration.js";

/** Activity types whose intent (or result) held a bearer secret at the top level, before they were redacted. */
const REDACTED_BEFORE: Array<[type: string, column: "intent" | "result", path: string]> = [
  ["ACTIVITY_TYPE_VERIFY_OTP_V2", "result", "{verifyOtpResult,verificationToken}"],
  ["ACTIVITY_TYPE_UPDATE_USER_EMAIL", "intent", "{updateUserEmailIntent,verificationToken}"],
  ["ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER", "intent", "{updateUserPhoneNumberIntent,verificationToken}"],
  ["ACTIVITY_TYPE_OTP_LOGIN_V2", "intent", "{otpLoginIntentV2,verificationToken}"],
  ["ACTIVITY_TYPE_OTP_AUTH", "intent", "{otpAuthIntent,otpCode}"],
  ["ACTIVITY_TYPE_OAUTH", "intent", "{oauthIntent,oidcToken}"],
  ["ACTIVITY_TYPE_OAUTH_LOGIN", "intent", "{oauthLoginIntent,oidcToken}"],
  ["ACTIVITY_TYPE_OAUTH2_AUTHENTICATE", "result", "{oauth2AuthenticateResult,oidcToken}"],
  ["ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION", "result", "{createReadOnlySessionResult,session}"],
  ["ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8", "intent", "{createSubOrganizationIntentV8,verificationToken}"],
];

const redactStored = REDACTED_BEFORE.map(
  ([type, column, path]) =>
    `UPDATE activities SET ${column} = jsonb_set(${column}, '${path}', '"<redacted>"') WHERE type = '${type}' AND ${column} #> '${path}' IS NOT NULL;`,
).join("\n");

export const boundProofs: Migration = {
  version: 21,
  name: "bound proofs",
  sql: `
-- A verification token is spent once per use it is put to (a signup, a login, a contact change): before, only
-- logins spent it, and one id could be recorded once whatever the use.
ALTER TABLE consumed_verification_tokens DROP CONSTRAINT consumed_verification_tokens_pkey;
ALTER TABLE consumed_verification_tokens ADD PRIMARY KEY (token_id, usage);

-- Bearer secrets are stored redacted; an activity that waits for consensus keeps its full parameters sealed
-- under the key-encryption key until it runs (cleared once it is over).
ALTER TABLE activities ADD COLUMN sealed_secret_params text;

-- What earlier versions stored in plaintext: the top-level secrets, and the signed bodies that carried them.
${redactStored}
UPDATE votes v SET message = '<redacted>' FROM activities a
 WHERE a.id = v.activity_id AND a.type IN (${REDACTED_BEFORE.filter(([, column]) => column === "intent")
   .map(([type]) => `'${type}'`)
   .join(", ")})
   AND (v.message LIKE '%"verificationToken"%' OR v.message LIKE '%"otpCode"%' OR v.message LIKE '%"oidcToken"%');
`,
};
