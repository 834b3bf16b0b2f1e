import type { VerifiedOidcToken } from "../../auth/oidc.js";
import { permissionDenied } from "../../errors.js";

/** OIDC tokens of OAuth provider registrations that verified, by the token's text. */
export type VerifiedTokens = ReadonlyMap<string, VerifiedOidcToken>;

/** Whose new credentials these are, and what the registration may rely on. */
export interface CredentialOwner {
  organizationId: string;
  userId: string;
  now: Date;
  /**
   * The session profile of the credential that asked for these (ActivityContext.requesterSessionProfileId):
   * API keys carry it; passkeys and OAuth providers cannot, so they are refused (src/auth/session-scope.ts
   * refuses them at submission already).
   */
  sessionProfileId: string | undefined;
  /** The registrations' OIDC tokens that verified (see verifyRegistrationTokens): their providers are proven. */
  verifiedTokens?: VerifiedTokens;
  /** The user registers these on themselves (see assertedBySelf): an OAuth provider from bare claims then logs nobody in. */
  bySelf?: boolean;
  /**
   * A verified token proves its provider at registration: true for a member's create_oauth_providers or
   * create_users. A signup (create_sub_organization, anonymous through the auth proxy) registers it unproven:
   * nobody who holds the key the token's nonce binds has signed anything yet, so the token may be anyone's;
   * the login that follows, stamped by that key, proves it (src/auth/attested-stamp.ts).
   */
  registrationProves?: boolean;
}

/** A credential that cannot carry a session profile is never made at the request of a credential that has one. */
export function refuseUnscopable(owner: CredentialOwner, what: string): void {
  if (owner.sessionProfileId !== undefined)
    throw permissionDenied(
      `${what} cannot carry session profile ${owner.sessionProfileId}, so a credential issued under it cannot register them`,
      "CREDENTIAL_NOT_ALLOWED",
    );
}
