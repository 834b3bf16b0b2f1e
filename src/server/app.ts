import cors from "@fastify/cors";
import type { FastifyInstance } from "fastify";
import { createHttpApp, rawBodyOf, type HttpAppOptions } from "../http/fastify-app.js";
import { activitiesByOperation, queriesByOperation } from "../pipeline/registry.js";
import { submit } from "../pipeline/submit.js";
import { EXPLANATION_HEADER, notFound } from "../errors.js";
import { runQuery } from "../pipeline/run-query.js";
import type { Services } from "../services.js";
import { recordActivity, recordRefusal } from "../pipeline/activity-log.js";
import { VERSION } from "../version.js";
import { webhookJwks } from "../crypto/webhook-signing-key.js";
import { openApiDocument } from "./openapi.js";
import { registerOidcRoutes } from "./oidc-routes.js";
import { registerFrameRoutes } from "../frames/routes.js";
import { registerConsoleRoutes } from "./console-routes.js";
import { UNSERVED_PATHS, unservedRefusal } from "./unserved.js";
import { registerStrongroomQueries } from "./strongroom-queries.js";
import { registerSealRoutes } from "./seal-routes.js";

export interface AppOptions extends HttpAppOptions {
  /** FRAME_ANCESTORS: who may embed the export and import pages (default any origin). */
  frameAncestors?: string[];
}

const SUBMIT_ROUTE = "/public/v1/submit/:operation";
const QUERY_ROUTE = "/public/v1/query/:operation";

/** The headers the browser SDKs send; preflights must allow them. */
const CORS_HEADERS = [
  "Content-Type",
  "X-Stamp",
  "X-Stamp-Webauthn",
  "X-Stamp-Attested",
  "X-Session",
  "X-Client-Version",
  "X-Auth-Proxy-Config-ID",
  "X-Captcha-Token",
];

/**
 * The HTTP face of Strongroom, on the setup both servers share (src/http/fastify-app.ts: raw bodies, limits,
 * errors in the API's shape): the API's CORS, its metrics, and routes from the operation registries.
 */
export async function buildApp(services: Services, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = createHttpApp({ ...options, notFoundWhat: "endpoint" });
  const { metrics } = services;

  const apiCors = {
    origin: true,
    methods: ["GET", "POST", "OPTIONS"],
    allowedHeaders: CORS_HEADERS,
    exposedHeaders: [EXPLANATION_HEADER],
    maxAge: 86400,
  };
  // The dev server's controls (/dev/, in `strongroom dev` and the test kit only) answer no web page: no CORS
  // headers there, preflights included, so a browser never lets a page on another origin read or send to them.
  await app.register(cors, {
    delegator: (request, callback) => callback(null, isDevControlsPath(request.url) ? { origin: false } : apiCors),
  });

  // While sealed, only the seal's own routes (and the console's static files, to unseal from) answer: the rest 503.
  registerSealRoutes(app, services.custody);

  app.addHook("onResponse", async (request, reply) => {
    const route = request.routeOptions.url ?? "unmatched";
    const status = String(reply.statusCode);
    metrics.requestDuration.observe({ route, status }, reply.elapsedTime / 1000);
    // Per operation, only for operations that exist: a label per unknown path would grow without bound.
    const operation = (request.params as { operation?: string } | undefined)?.operation;
    const kind = route === SUBMIT_ROUTE ? "submit" : route === QUERY_ROUTE ? "query" : undefined;
    const known = kind === "submit" ? activitiesByOperation.has(operation!) : kind === "query" && queriesByOperation.has(operation!);
    if (kind && known) metrics.operationDuration.observe({ operation: operation!, kind, status }, reply.elapsedTime / 1000);
  });

  app.post<{ Params: { operation: string } }>(SUBMIT_ROUTE, async (request, reply) => {
    const definition = activitiesByOperation.get(request.params.operation);
    if (!definition) throw notFound(`unknown activity operation ${JSON.stringify(request.params.operation)}`);
    const started = performance.now();
    let outcome;
    try {
      outcome = await submit(services, definition, {
        headers: request.headers,
        rawBody: rawBodyOf(request),
        clientIp: request.ip,
        onError: (error) => request.log.error({ err: error, activityType: definition.type }, "activity handler failed"),
      });
    } catch (error) {
      recordRefusal(request.log, metrics, definition, error, performance.now() - started);
      throw error;
    }
    recordActivity(request.log, metrics, definition, outcome, performance.now() - started);
    return reply.send(outcome);
  });

  app.post<{ Params: { operation: string } }>(QUERY_ROUTE, async (request, reply) => {
    const definition = queriesByOperation.get(request.params.operation);
    if (!definition) throw notFound(`unknown query operation ${JSON.stringify(request.params.operation)}`);
    return reply.send(await runQuery(services, definition, request.headers, rawBodyOf(request), request.ip));
  });

  registerStrongroomQueries(app, services);

  // Paths of the upstream API that need the hosted service's own parts: a precise 501, never "unknown operation".
  for (const [path, family] of Object.entries(UNSERVED_PATHS)) {
    if (isServedPath(path)) continue;
    app.post(path, async () => {
      throw unservedRefusal(path, family);
    });
  }

  app.get("/public/v1/discovery/keys", async () => ({
    signerPublicKey: services.signer.publicKeyHex,
    encryptionPublicKey: services.encryptionKey.publicKeyHex,
  }));
  app.get("/public/v1/discovery/webhooks/jwks", async (_request, reply) => {
    void reply.header("cache-control", "public, max-age=86400, s-maxage=86400, stale-if-error=604800");
    return webhookJwks(services.webhooks.signingKey);
  });

  registerOidcRoutes(app, services);
  registerConsoleRoutes(app);
  registerFrameRoutes(app, { signerPublicKey: () => services.signer.publicKeyHex, frameAncestors: options.frameAncestors ?? ["*"] });

  const openApi = openApiDocument();
  app.get("/openapi.json", async () => openApi);

  app.get("/health", async () => {
    await services.db.query("SELECT 1");
    return { status: "ok", version: VERSION, database: services.db.kind };
  });

  return app;
}

/** A path the operation registries serve (they win over the table of unserved paths). */
export function isServedPath(path: string): boolean {
  const match = /^\/public\/v1\/(submit|query)\/([a-z0-9_]+)$/.exec(path);
  if (!match) return false;
  return match[1] === "submit" ? activitiesByOperation.has(match[2]!) : queriesByOperation.has(match[2]!);
}

/**
 * Whether a request path reaches the dev controls, as the router would match it (duplicate slashes ignored,
 * percent-encoding decoded): the API's CORS never applies there, preflights included.
 */
export function isDevControlsPath(url: string): boolean {
  const path = url.split("?", 1)[0]!;
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // Malformed escapes: the router refuses the request anyway; judge the raw path.
  }
  return decoded.replace(/\/{2,}/g, "/").startsWith("/dev/");
}
