import { Type, type Static } from "@sinclair/typebox";
import { StringEnum } from "../../schema/common.js";
import { AUTHENTICATION_TYPES, type AuthenticationType, type RequiredStep } from "../../records/mfa-policy.js";

/** The types a step may require: every type some credential proves (authenticationMethodOf). */
export const SATISFIABLE_TYPES: ReadonlySet<AuthenticationType> = new Set(AUTHENTICATION_TYPES);

/** Proven by an attested stamp (X-Stamp-Attested): a verification token for an email or phone, or an OIDC token. */
const ATTESTED_TYPES: ReadonlySet<string> = new Set([
  "AUTHENTICATION_TYPE_EMAIL_OTP",
  "AUTHENTICATION_TYPE_SMS_OTP",
  "AUTHENTICATION_TYPE_OAUTH",
]);

/** Bounded cost: the policies a user may have, the steps of one, the methods of one step. */
export const MAX_MFA_POLICIES_PER_USER = 10;
export const MAX_STEPS = 5;
export const MAX_METHODS_PER_STEP = 6;

export const AuthenticationMethodParams = Type.Object({
  type: StringEnum(AUTHENTICATION_TYPES),
  id: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
});
export const RequiredAuthenticationMethodParams = Type.Object({
  any: Type.Array(AuthenticationMethodParams, { minItems: 1, maxItems: MAX_METHODS_PER_STEP }),
});
export const RequiredMethodsParams = Type.Array(RequiredAuthenticationMethodParams, { minItems: 1, maxItems: MAX_STEPS });

export type AuthenticationMethod = Static<typeof AuthenticationMethodParams>;

/** A credential as authentication produced it, or as a vote recorded it. */
export interface ProvingCredential {
  id: string;
  type: string;
  /** How the stamp authenticated (Principal.authenticationType); votes cast before it was kept lack it. */
  authenticationType?: string;
  /** The session profile a login key was issued under (Principal.sessionProfile). */
  sessionProfileId?: string;
  /** When the credential was registered (ISO 8601); none for a one-time code, and in votes cast before it was kept. */
  createdAt?: string;
}

/** What one stamp proves: the authentication method and the id a step may name. */
export interface ProvenMethod {
  type: AuthenticationType;
  /** The API key or authenticator id; for a session, the session profile it was issued under. */
  id?: string;
  /** The credential that proved it: two steps are never proven by the same credential. */
  credentialId: string;
}

const SESSION_CREDENTIAL_TYPES = new Set([
  "CREDENTIAL_TYPE_LOGIN",
  "CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256",
  "CREDENTIAL_TYPE_OTP_AUTH_KEY_P256",
  "CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256",
  "CREDENTIAL_TYPE_OAUTH_KEY_P256",
]);
const API_KEY_CREDENTIAL_TYPES = new Set([
  "CREDENTIAL_TYPE_API_KEY_P256",
  "CREDENTIAL_TYPE_API_KEY_SECP256K1",
  "CREDENTIAL_TYPE_API_KEY_ED25519",
]);

/**
 * Whether the credential existed when the activity was submitted. One registered afterwards proves no step of
 * it: otherwise whoever holds one factor could enroll another (or mint a session) once they see what the
 * activity waits for, and prove that with it. A one-time code has no registration — each is a fresh proof.
 */
export const existedAtSubmission = (credential: ProvingCredential, submittedAt: Date) =>
  credential.createdAt === undefined || Date.parse(credential.createdAt) <= submittedAt.getTime();

/**
 * The MFA hook: which authentication method the credential that stamped a request (the submission or an
 * approve_activity) proves, from the credential type the authenticate step gives it (src/auth/authentication.ts,
 * kept in each vote's `credential`). A passkey proves PASSKEY, a long-lived API key API_KEY, a key issued by a
 * login activity SESSION — and only that: sessions are not transitive (a session made with a passkey does not
 * prove the passkey). An attested stamp proves EMAIL_OTP or SMS_OTP (its id is the verification token's, so
 * each code proves once) or OAUTH (its id is the OAuth provider's). A recovery key or a read-only session
 * proves nothing.
 */
export function authenticationMethodOf(credential: ProvingCredential): ProvenMethod | undefined {
  const proven = (type: AuthenticationType, id?: string): ProvenMethod => ({ type, ...(id ? { id } : {}), credentialId: credential.id });
  if (credential.authenticationType !== undefined && ATTESTED_TYPES.has(credential.authenticationType))
    return proven(credential.authenticationType as AuthenticationType, credential.id);
  if (credential.type === "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR") return proven("AUTHENTICATION_TYPE_PASSKEY", credential.id);
  if (API_KEY_CREDENTIAL_TYPES.has(credential.type)) return proven("AUTHENTICATION_TYPE_API_KEY", credential.id);
  if (SESSION_CREDENTIAL_TYPES.has(credential.type)) return proven("AUTHENTICATION_TYPE_SESSION", credential.sessionProfileId);
  return undefined;
}

const accepts = (step: RequiredStep, method: ProvenMethod) =>
  step.any.some((m) => m.type === method.type && (m.id === undefined || m.id === method.id));

/**
 * Which steps the proofs satisfy, each by a different credential, in any order ("all steps must be satisfied,
 * but the order in which they are satisfied does not matter"): a maximum matching of steps to proofs (at most
 * MAX_STEPS steps, so augmenting paths are cheap). Answers, per step, the proof assigned to it.
 */
export function matchSteps(steps: RequiredStep[], proofs: ProvenMethod[]): Array<ProvenMethod | undefined> {
  const byCredential = new Map<string, ProvenMethod>();
  for (const proof of proofs) if (!byCredential.has(proof.credentialId)) byCredential.set(proof.credentialId, proof);
  const distinct = [...byCredential.values()];
  const owner = new Map<number, number>(); // proof index -> step index
  const assign = (step: number, seen: Set<number>): boolean => {
    for (let p = 0; p < distinct.length; p++) {
      if (seen.has(p) || !accepts(steps[step]!, distinct[p]!)) continue;
      seen.add(p);
      const current = owner.get(p);
      if (current === undefined || assign(current, seen)) {
        owner.set(p, step);
        return true;
      }
    }
    return false;
  };
  steps.forEach((_, step) => assign(step, new Set()));
  const matched: Array<ProvenMethod | undefined> = steps.map(() => undefined);
  for (const [p, step] of owner) matched[step] = distinct[p];
  return matched;
}

export const describeStep = (step: RequiredStep) => step.any.map((m) => (m.id ? `${m.type} (${m.id})` : m.type)).join(" or ");
