import type { FastifyInstance } from "fastify";
import type { QueryDefinition } from "../operations/query-definition.js";
import { notFound } from "../errors.js";
import { dryRunActivity } from "../pipeline/dry-run/definition.js";
import { runQuery } from "../pipeline/run-query.js";
import type { Services } from "../services.js";
import { auditQueries } from "../domains/audit/index.js";

/** Strongroom's own queries, outside the upstream API's paths; stamped and answered exactly like /public/v1/query/ (NDJSON where a query offers it and the request accepts it). */
export const STRONGROOM_QUERY_ROUTE = "/strongroom/v1/query/:operation";
export const strongroomQueryPath = (operation: string) => `/strongroom/v1/query/${operation}`;

export const strongroomQueries: QueryDefinition[] = [dryRunActivity, ...auditQueries];
const strongroomQueriesByOperation = new Map(strongroomQueries.map((d) => [d.operation, d]));

export function registerStrongroomQueries(app: FastifyInstance, services: Services): void {
  app.post<{ Params: { operation: string } }>(STRONGROOM_QUERY_ROUTE, async (request, reply) => {
    const definition = strongroomQueriesByOperation.get(request.params.operation);
    if (!definition) throw notFound(`unknown query operation ${JSON.stringify(request.params.operation)}`);
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const answer = await runQuery(services, definition, request.headers, body, request.ip);
    if (definition.asNdjson && /\bapplication\/x-ndjson\b/.test(request.headers.accept ?? ""))
      return reply.type("application/x-ndjson").send(definition.asNdjson(answer));
    return reply.send(answer);
  });
}
