import type { FastifyInstance } from "fastify";
import type { QueryDefinition } from "../operations/query-definition.js";
import { notFound } from "../errors.js";
import { dryRunActivity } from "../pipeline/dry-run/definition.js";
import { runQuery } from "../pipeline/run-query.js";
import { submit } from "../pipeline/submit.js";
import { strongroomActivities } from "../domains/custody/index.js";
import { rawBodyOf } from "../http/fastify-app.js";
import type { Services } from "../services.js";
import { auditQueries } from "../domains/audit/index.js";

/** Strongroom's own queries and activities, outside the upstream API's paths; stamped and answered exactly like /public/v1/. */
export const STRONGROOM_QUERY_ROUTE = "/strongroom/v1/query/:operation";
export const strongroomQueryPath = (operation: string) => `/strongroom/v1/query/${operation}`;

export const strongroomQueries: QueryDefinition[] = [dryRunActivity, ...auditQueries];
const strongroomQueriesByOperation = new Map(strongroomQueries.map((d) => [d.operation, d]));

/** Strongroom's own activities (src/domains/custody/index.ts), stamped, decided and voted on like /public/v1/submit/. */
export const STRONGROOM_SUBMIT_ROUTE = "/strongroom/v1/submit/:operation";
const strongroomActivitiesByOperation = new Map(strongroomActivities.map((d) => [d.operation, d]));

export function registerStrongroomQueries(app: FastifyInstance, services: Services): void {
  app.post<{ Params: { operation: string } }>(STRONGROOM_SUBMIT_ROUTE, async (request, reply) => {
    const definition = strongroomActivitiesByOperation.get(request.params.operation);
    if (!definition) throw notFound(`unknown activity operation ${JSON.stringify(request.params.operation)}`);
    return reply.send(
      await submit(services, definition, {
        headers: request.headers,
        rawBody: rawBodyOf(request),
        clientIp: request.ip,
        onError: (error) => request.log.error({ err: error, activityType: definition.type }, "activity handler failed"),
      }),
    );
  });
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
