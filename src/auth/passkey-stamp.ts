import { unauthenticated } from "../errors.js";
import {
  advanceSignCount,
  bindRelyingParty,
  findAuthenticatorInOrganization,
  markAuthenticatorProven,
  type AuthenticatorOfUser,
  type AuthenticatorRow,
} from "../records/authenticator.js";
import { requireOrganization, type OrganizationRow } from "../records/organization.js";
import type { Queryable } from "../store/database.js";
import { scopeDescription, type Principal } from "./principal.js";
import type { WebAuthnStamp } from "./stamp.js";
import { authenticatorInSubOrganization } from "./sub-organization-credentials.js";
import { verifyWebAuthnStamp } from "./webauthn.js";

type Verified = Awaited<ReturnType<typeof verifyWebAuthnStamp>>;

const verifyWith = (stamp: WebAuthnStamp, rawBody: Buffer) => (authenticator: AuthenticatorRow) =>
  verifyWebAuthnStamp(stamp, rawBody, {
    credentialId: authenticator.credential_id,
    publicKey: authenticator.public_key,
    signCount: Number(authenticator.sign_count),
    rpIdHash: authenticator.rp_id_hash,
  });

/**
 * An X-Stamp-WebAuthn (a passkey's assertion over the body's challenge): the passkey is found by credential id
 * in the organization or its parent (or, with `inSubOrganizations`, the one of its sub-organizations whose key
 * made the assertion, where the request then acts); its signature must verify for the relying party it is bound
 * to, and its counter must rise. Passkeys are never subject to IP allowlists (only API keys are).
 */
export async function authenticatePasskey(
  db: Queryable,
  stamp: WebAuthnStamp,
  rawBody: Buffer,
  org: OrganizationRow,
  now: Date,
  inSubOrganizations: boolean,
): Promise<{ principal: Principal; organization: OrganizationRow }> {
  const verify = verifyWith(stamp, rawBody);
  let authenticator: AuthenticatorOfUser | undefined = await findAuthenticatorInOrganization(db, stamp.credentialId, org);
  let verified: Verified | undefined;
  if (!authenticator && inSubOrganizations) {
    // Several sub-organizations may hold this credential id: the one whose key made the assertion is the signer.
    const results = new Map<string, Verified>();
    authenticator = await authenticatorInSubOrganization(db, stamp.credentialId, org, async (holder) => {
      try {
        results.set(holder.id, await verify(holder));
        return true;
      } catch {
        return false;
      }
    });
    if (authenticator) verified = results.get(authenticator.id);
  }
  if (!authenticator) {
    throw unauthenticated(`credential ID ${stamp.credentialId} could not be found in ${scopeDescription(org)}`, "CREDENTIAL_NOT_FOUND");
  }
  const stored = Number(authenticator.sign_count);
  const { newCounter, rpIdHash } = verified ?? (await verify(authenticator));
  if (authenticator.rp_id_hash === null) {
    // Registered before relying parties were recorded: bound to the first one it is used with.
    const bound = await bindRelyingParty(db, authenticator.id, rpIdHash);
    if (bound !== undefined && bound !== rpIdHash) {
      throw unauthenticated(
        `could not verify WebAuthn signature: the assertion is for another relying party than the one credential ${authenticator.credential_id} is bound to`,
        "SIGNATURE_INVALID",
      );
    }
  }
  if ((newCounter > 0 || stored > 0) && !(await advanceSignCount(db, authenticator.id, newCounter))) {
    throw unauthenticated(
      `WebAuthn signature counter ${newCounter} of authenticator ${authenticator.id} did not increase: replayed or cloned authenticator`,
      "SIGNATURE_INVALID",
    );
  }
  if (!authenticator.proven_at) await markAuthenticatorProven(db, authenticator.id, now);
  const inSubOrganization = authenticator.organization_id !== org.id && authenticator.organization_id !== org.parent_id;
  const principal: Principal = {
    user: {
      id: authenticator.user_id,
      name: authenticator.user_name,
      organizationId: authenticator.organization_id,
      isRoot: authenticator.is_root,
    },
    credential: {
      kind: "webauthn",
      id: authenticator.id,
      type: "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR",
      publicKey: authenticator.public_key,
      credentialId: authenticator.credential_id,
      createdAt: authenticator.created_at,
    },
    authenticationType: "AUTHENTICATION_TYPE_PASSKEY",
    viaParent: !inSubOrganization && authenticator.organization_id !== org.id,
    ...(inSubOrganization ? { namedOrganizationId: org.id } : {}),
    stamp: { publicKey: authenticator.public_key, scheme: "SIGNATURE_SCHEME_TK_API_WEBAUTHN", signature: stamp.signature },
  };
  return { principal, organization: inSubOrganization ? await requireOrganization(db, authenticator.organization_id) : org };
}
