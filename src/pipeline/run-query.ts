import { authenticate } from "../auth/authenticate.js";
import { assertCredentialMayUse } from "../auth/credential-scope.js";
import { parseJsonBody, requireOrganizationId, type RequestHeaders } from "./submit-activity.js";
import { validate } from "../schema/validate.js";
import type { Services } from "../services.js";
import type { QueryDefinition } from "./query-definition.js";

/**
 * The query pipeline: parse → authenticate (a credential of the organization, or of its parent,
 * which may read its sub-organizations, or a read-only session token in X-Session) → validate →
 * execute. Queries write nothing.
 */
export async function runQuery(
  services: Services,
  definition: QueryDefinition,
  headers: RequestHeaders,
  rawBody: Buffer,
  clientIp?: string,
): Promise<Record<string, unknown>> {
  const now = services.clock();
  const body = parseJsonBody(rawBody);
  const organizationId = requireOrganizationId(body);
  const { principal, organization } = await authenticate(services.db, headers, rawBody, organizationId, now, {
    readOnlySessions: services.signer,
    clientIp,
  });
  assertCredentialMayUse(principal, definition.operation);
  const input = validate(definition.body, body, "");
  return definition.execute({ organization, principal, now, services }, input);
}
