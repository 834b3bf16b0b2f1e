/**
 * Credential types made for one purpose, which may use only the operations that name them
 * (`SignerRules.scopedCredentials`). The email recovery key (init_user_email_recovery) exists to add a
 * passkey with recover_user; whoever reads the recovery email must not get the user's full powers from it.
 */
export const SCOPED_CREDENTIAL_TYPES = ["CREDENTIAL_TYPE_RECOVER_USER_KEY_P256"] as const;
export type ScopedCredentialType = (typeof SCOPED_CREDENTIAL_TYPES)[number];

/**
 * Who may sign an operation besides a credential of the organization it names (or, read-only, of that
 * organization's parent): what an activity, a vote or a query declares, and the authenticate step reads
 * (src/pipeline/steps/authenticate.ts, src/auth/).
 */
export interface SignerRules {
  /**
   * A credential of a sub-organization of the named organization may sign, as @turnkey/core's
   * loginWithPasskey and @turnkey/sdk-browser's login, loginWithPasskey and loginWithWallet send them (they
   * name the app's parent organization, which is all they know before the first session). The request then
   * acts in the sub-organization that holds the credential, as that sub-organization's user, and may write
   * only the signer's own login key there. Every other operation resolves a credential only in the
   * organization it names or its parent, so a sub-organization's credential cannot act in its parent.
   */
  subOrganizationCredentials?: boolean;
  /**
   * An attested stamp (X-Stamp-Attested: a P-256 key bound by a verification token or an OIDC token) may
   * sign: @turnkey/core signs stamp_login with it, and an approve_activity stamped so proves an MFA policy's
   * EMAIL_OTP, SMS_OTP or OAUTH step. Only with `subOrganizationCredentials` may it resolve a user in a
   * sub-organization of the named organization.
   */
  attestedStamp?: boolean;
  /** The scoped credential types (SCOPED_CREDENTIAL_TYPES) that may use this operation; other operations refuse them. */
  scopedCredentials?: readonly ScopedCredentialType[];
}
