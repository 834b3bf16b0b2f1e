import type { Services } from "../services.js";
import type { QueryDefinition } from "../operations/query-definition.js";
import { authenticateRequest } from "./steps/authenticate.js";
import { parseRequest, type RequestHeaders } from "./steps/parse.js";
import { validate } from "../schema/validation.js";

/**
 * The query pipeline, `/public/v1/query/<operation>`, top to bottom:
 *
 *   parse → authenticate (a credential of the organization, or of its parent, which may read its
 *   sub-organizations, or a read-only session token in X-Session) → validate (the body's schema) → execute
 *
 * Queries write nothing.
 */
export async function runQuery(
  services: Services,
  definition: QueryDefinition,
  headers: RequestHeaders,
  rawBody: Buffer,
  clientIp?: string,
): Promise<Record<string, unknown>> {
  const parsed = parseRequest(rawBody);
  const { principal, organization, now } = await authenticateRequest(
    services,
    definition,
    parsed,
    { headers, rawBody, clientIp, onError: () => undefined },
    { kind: "query" },
  );
  const input = validate(definition.body, parsed.body, "");
  return definition.execute({ organization, principal, now, services }, input);
}
