import { authenticate } from "../../auth/authentication.js";
import type { Principal } from "../../auth/principal.js";
import { permissionDenied } from "../../errors.js";
import { assertCredentialMayUse } from "../../auth/credential-scope.js";
import type { SignerRules } from "../../operations/signers.js";
import { operationsOfScopedCredential } from "../registry.js";
import type { OrganizationRow } from "../../records/organization.js";
import type { Services } from "../../services.js";
import { readAlongside, type ReadAhead, type Statement } from "../../store/read-alongside.js";
import type { ParsedRequest, SignedRequest } from "./parse.js";

/** Who asks, in which organization, at what time: what every later step reads. */
export interface Caller {
  principal: Principal;
  organization: OrganizationRow;
  now: Date;
  /** What the definition's `readAhead` read with the authentication: a submission's, in the organization it named. */
  readAhead?: ReadAhead;
}

/**
 * Step "authenticate": the stamp over the raw body, a credential of the organization (or of its parent; for
 * the few operations whose definition allows `subOrganizationCredentials`, of one of its sub-organizations,
 * where the request then acts), and a credential allowed this operation (a read-only session may not submit;
 * an attested stamp only where the definition allows `attestedStamp`; a scoped credential only where the
 * definition names it). Submissions also read the user's record, which their vote records. The caller's
 * `principal.authenticationType` says how the request was authenticated (API key, session, passkey, email or
 * SMS OTP, OAuth).
 */
export async function authenticateRequest(
  services: Services,
  definition: SignerRules & { operation: string },
  parsed: ParsedRequest,
  request: SignedRequest,
  options: { kind: "submit" | "query"; readAhead?: Statement },
): Promise<Caller> {
  const now = services.clock();
  const reading = options.readAhead ? readAlongside(services.db, options.readAhead) : undefined;
  const db = reading?.db ?? services.db;
  const { principal, organization } = await authenticate(db, request.headers, request.rawBody, parsed.organizationId, now, {
    clientIp: request.clientIp,
    operation: definition.operation,
    subOrganizationCredentials: definition.subOrganizationCredentials === true,
    ...(definition.attestedStamp ? { attestedStamps: services } : {}),
    ...(options.kind === "submit" ? { withSnapshot: true } : { readOnlySessions: services.signer }),
  });
  assertCredentialMayUse(principal, definition, operationsOfScopedCredential);
  // Read for the organization the request named: a sub-organization's credential acting in its own drops it.
  const readAhead = organization.id === parsed.organizationId ? reading?.read() : undefined;
  return { principal, organization, now, ...(readAhead ? { readAhead } : {}) };
}

/**
 * A parent organization's user may submit only the authentication activities a parent may initiate for its
 * sub-organizations; anything else is read-only access (they may still read back an activity with this body).
 */
export function assertMayInitiate(caller: Caller, definition: { type: string; parentMayInitiate?: boolean }): void {
  const { principal, organization } = caller;
  if (principal.viaParent && !definition.parentMayInitiate) {
    throw permissionDenied(
      `user ${principal.user.id} (${JSON.stringify(principal.user.name)}) belongs to the parent organization ${principal.user.organizationId}, which has read-only access to sub-organization ${organization.id}: ${definition.type} is not authorized`,
    );
  }
}
