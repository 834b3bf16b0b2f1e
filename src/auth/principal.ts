import type { AuthenticationType } from "../records/mfa-policy.js";
import type { OrganizationRow } from "../records/organization.js";
import type { UserRecord } from "../records/user.js";

/**
 * How a request was authenticated, in the API's AuthenticationType terms (the same set MFA policy steps name): an
 * API key (a session's login key counts as SESSION), a passkey, a read-only session token, or an attested stamp
 * proving an OTP or OAuth login.
 */
export type { AuthenticationType };

/** Who signed a request, as established from its stamp. */
export interface Principal {
  user: { id: string; name: string; organizationId: string; isRoot: boolean };
  /**
   * The API key or authenticator that signed; `credentialId` is a passkey's WebAuthn credential id. For an
   * attested stamp (X-Stamp-Attested), `id` is the verification token's id or the OAuth provider's id, `type`
   * CREDENTIAL_TYPE_OTP_AUTH_KEY_P256 or CREDENTIAL_TYPE_OAUTH_KEY_P256, and `publicKey` the key the token binds.
   */
  credential: {
    kind: "api-key" | "webauthn" | "read-only-session" | "attested";
    id: string;
    type: string;
    publicKey: string;
    credentialId?: string;
    /**
     * When the API key, passkey or (attested OIDC token) OAuth provider was registered; none for a one-time
     * code, which is a fresh proof by nature, or a read-only session, which proves nothing.
     */
    createdAt?: Date;
  };
  authenticationType: AuthenticationType;
  /** True when the credential belongs to the target organization's parent (read-only access). */
  viaParent: boolean;
  /**
   * Set when the request named a parent organization and the credential was found in one of its
   * sub-organizations (an operation allowing `subOrganizationCredentials`, src/operations/signers.ts): the request acts in that
   * sub-organization, the `organization` authenticate answers.
   */
  namedOrganizationId?: string;
  /** What a vote records of the stamp. */
  stamp: { publicKey: string; scheme: string; signature: string };
  /** The user's full record, read with an API key when the caller asked for it (a vote records it). */
  snapshot?: UserRecord;
  /**
   * Read with the snapshot: whether the user's organization (the one whose policies and velocity controls decide
   * what the user submits) had any velocity control. False spares the decision its read of them
   * (src/policy/velocity/ledger.ts); unknown without a snapshot.
   */
  organizationHasVelocityControls?: boolean;
  /**
   * Read with the snapshot: whether the organization the request acts in, or its parent, had an active subscription to
   * ACTIVITY_UPDATES. False lets a new activity's insert leave with its COMMIT, with no delivery to queue after it
   * (src/pipeline/steps/persist.ts); unknown without a snapshot.
   */
  activityUpdatesSubscribed?: boolean;
  /** The session profile a login key was issued under: its scope binds every activity the key submits (session-scope.ts). */
  sessionProfile?: { id: string; name: string; scope: string };
}

/**
 * Where a credential was looked for, as told to a caller who is not (yet) authenticated: the organization it
 * named and, as the hosted API words it, "or its parent organization" — never the parent's id, and the same
 * words whether or not there is a parent, so the answer says nothing the caller did not already know.
 */
export function scopeDescription(org: OrganizationRow): string {
  return `organization ${org.id} or its parent organization`;
}
