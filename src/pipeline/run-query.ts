import type { Services } from "../services.js";
import type { QueryDefinition } from "../operations/query-definition.js";
import { authenticateRequest } from "./steps/authenticate.js";
import { parseRequest, type RequestHeaders } from "./steps/parse.js";
import { validate } from "../schema/validation.js";
import { recordQueryEvent, recordRefusalEvent, type AuditTrail } from "./steps/audit.js";

/**
 * The query pipeline, `/public/v1/query/<operation>`, top to bottom:
 *
 *   parse → authenticate (a credential of the organization, or of its parent, which may read its
 *   sub-organizations, or a read-only session token in X-Session) → validate (the body's schema) → execute
 *   → record
 *
 * Queries write nothing but the audit log's entries: a failed authentication always, and, with
 * STRONGROOM_AUDIT_QUERIES, every query and its outcome (src/pipeline/steps/audit.ts).
 */
export async function runQuery(
  services: Services,
  definition: QueryDefinition,
  headers: RequestHeaders,
  rawBody: Buffer,
  clientIp?: string,
): Promise<Record<string, unknown>> {
  const trail: AuditTrail = {};
  try {
    const parsed = parseRequest(rawBody);
    trail.organizationId = parsed.organizationId;
    const { principal, organization, now } = await authenticateRequest(
      services,
      definition,
      parsed,
      { headers, rawBody, clientIp, onError: () => undefined },
      { kind: "query" },
    );
    Object.assign(trail, { principal, organizationId: organization.id });
    const input = validate(definition.body, parsed.body, "");
    const answer = await definition.execute({ organization, principal, now, services }, input);
    await recordQueryEvent(services, definition.operation, principal, organization.id, clientIp); // record
    return answer;
  } catch (error) {
    if (!trail.principal || services.audit.recordQueries) {
      await recordRefusalEvent(
        services,
        { kind: "query", operation: definition.operation, clientIp, onError: () => undefined },
        trail,
        error,
      );
    }
    throw error;
  }
}
