import type { ServerKey } from "../crypto/server-keys.js";
import { permissionDenied } from "../errors.js";
import { requireOrganization, type OrganizationRow } from "../records/organization.js";
import type { Services } from "../services.js";
import type { Queryable } from "../store/database.js";
import { authenticateApiKey } from "./api-key-stamp.js";
import { authenticateAttestedStamp } from "./attested-stamp.js";
import { authenticatePasskey } from "./passkey-stamp.js";
import type { Principal } from "./principal.js";
import { authenticateReadOnlySession } from "./read-only-session.js";
import { parseStamp } from "./stamp.js";

type RequestHeaders = Record<string, string | string[] | undefined>;

/** A read-only session token (X-Session) alone, with no stamp beside it. */
function readOnlySessionOf(headers: RequestHeaders): string | undefined {
  const session = headers["x-session"];
  const stamped =
    headers["x-stamp"] !== undefined || headers["x-stamp-webauthn"] !== undefined || headers["x-stamp-attested"] !== undefined;
  return typeof session === "string" && !stamped ? session : undefined;
}

/**
 * Establishes who signed a request to an organization, by the kind of credential its headers carry: a
 * read-only session token (read-only-session.ts), an API key's stamp (api-key-stamp.ts), an attested stamp
 * (attested-stamp.ts) or a passkey's (passkey-stamp.ts). Each finds the credential in the organization or,
 * read-only, in its parent — or, for the operations that allow it (`subOrganizationCredentials`), in one of its
 * sub-organizations, where the request then acts. The organization answered is the one the request acts in.
 */
export async function authenticate(
  db: Queryable,
  headers: RequestHeaders,
  rawBody: Buffer,
  organizationId: string,
  now: Date,
  options: {
    /** For queries: the signer key read-only session tokens (X-Session) are verified with. */
    readOnlySessions?: ServerKey;
    /** The client's address (the socket's, or X-Forwarded-For through TRUST_PROXY), for IP allowlists. */
    clientIp?: string;
    /** For activities: read the user's full record too (`principal.snapshot`), in the same statement where it can. */
    withSnapshot?: boolean;
    /** A credential of a sub-organization of the named organization may sign (the definition's `subOrganizationCredentials`). */
    subOrganizationCredentials?: boolean;
    /** X-Stamp-Attested is accepted (the definition's `attestedStamp`), its tokens verified with these services. */
    attestedStamps?: Pick<Services, "signer" | "oauth">;
    /** The operation, for the refusal of a stamp it does not accept. */
    operation?: string;
  } = {},
): Promise<{ principal: Principal; organization: OrganizationRow }> {
  const session = readOnlySessionOf(headers);
  if (session !== undefined) {
    if (!options.readOnlySessions) {
      throw permissionDenied(
        "a read-only session (X-Session) can only read; submitting an activity needs a stamp (X-Stamp or X-Stamp-WebAuthn)",
        "READ_ONLY_SESSION",
      );
    }
    const organization = await requireOrganization(db, organizationId);
    return { principal: await authenticateReadOnlySession(db, options.readOnlySessions, session, organization, now), organization };
  }
  const stamp = parseStamp(headers);
  const inSubOrganizations = options.subOrganizationCredentials === true;
  switch (stamp.kind) {
    case "api-key":
      return authenticateApiKey(
        db,
        stamp,
        rawBody,
        organizationId,
        now,
        options.clientIp,
        options.withSnapshot === true,
        inSubOrganizations,
      );
    case "attested":
      return authenticateAttestedStamp(db, stamp, rawBody, organizationId, now, {
        inSubOrganizations,
        ...(options.attestedStamps ? { attestedStamps: options.attestedStamps } : {}),
        ...(options.operation ? { operation: options.operation } : {}),
      });
    case "webauthn":
      return authenticatePasskey(db, stamp, rawBody, await requireOrganization(db, organizationId), now, inSubOrganizations);
  }
}
