import cors from "@fastify/cors";
import Fastify, { type FastifyInstance, type FastifyReply } from "fastify";
import { activitiesByOperation, queriesByOperation } from "../pipeline/registry.js";
import { submit } from "../pipeline/submit.js";
import { ApiError, errorReply, EXPLANATION_HEADER, GrpcCode, notFound, type ErrorMessageStyle } from "../errors.js";
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

export interface AppOptions {
  logLevel?: string;
  bodyLimitBytes?: number;
  /** Where logs go (stdout by default). */
  logStream?: NodeJS.WritableStream;
  /** Addresses or CIDRs of proxies whose X-Forwarded-For is believed (TRUST_PROXY). */
  trustProxy?: string[];
  /** STRONGROOM_ERROR_MESSAGES: how error bodies are worded. */
  errorMessages?: ErrorMessageStyle;
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
 * The HTTP face of Strongroom. Bodies are kept as the exact bytes received (stamps are verified
 * over them), routes come from the operation registries, and every error has the API's shape.
 */
export async function buildApp(services: Services, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger:
      options.logLevel === "silent"
        ? false
        : { level: options.logLevel ?? "info", ...(options.logStream ? { stream: options.logStream } : {}) },
    bodyLimit: options.bodyLimitBytes ?? 2 * 1024 * 1024,
    // While stopping, start.ts answers late requests itself, in the API's error shape.
    return503OnClosing: false,
    routerOptions: { ignoreDuplicateSlashes: true },
    // Errors the router raises before any route runs (a malformed or over-long path) get the API's shape too.
    frameworkErrors: (error, _request, routeReply) => {
      const reply = routeReply as unknown as FastifyReply;
      const status = error.code === "FST_ERR_MAX_PARAM_LENGTH" ? 414 : error.code === "FST_ERR_BAD_URL" ? 400 : 500;
      const message =
        status === 414
          ? "a path segment of the request URL is too long"
          : status === 400
            ? "the request URL is malformed"
            : "internal error";
      void reply
        .status(status)
        .send(
          new ApiError(
            status === 500 ? GrpcCode.INTERNAL : GrpcCode.INVALID_ARGUMENT,
            message,
            status === 500 ? "INTERNAL" : "REQUEST_INVALID",
            [],
            status,
          ).toBody(),
        );
    },
    // X-Forwarded-For is believed only from the proxies TRUST_PROXY names.
    ...(options.trustProxy?.length ? { trustProxy: options.trustProxy } : {}),
  });
  const { metrics } = services;

  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));

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

  app.setErrorHandler((error, request, reply) => {
    const mapped = errorReply(error, options.errorMessages);
    if (mapped?.explanation !== undefined) {
      // The body has the hosted wording; Strongroom's explanation stays where clients do not compare it.
      request.log.info({ explanation: mapped.explanation, code: mapped.body.code }, "error answered in the hosted wording");
      void reply.header(EXPLANATION_HEADER, headerSafe(mapped.explanation));
    }
    if (mapped) return reply.status(mapped.status).send(mapped.body);
    request.log.error({ err: error }, "unhandled error");
    return reply.status(500).send(new ApiError(GrpcCode.INTERNAL, "internal error", "INTERNAL").toBody());
  });

  app.setNotFoundHandler((request, reply) => {
    const error = notFound(`no such endpoint: ${request.method} ${request.url}`);
    return reply.status(404).send(error.toBody());
  });

  const rawBody = (body: unknown): Buffer => (Buffer.isBuffer(body) ? body : Buffer.alloc(0));

  app.post<{ Params: { operation: string } }>(SUBMIT_ROUTE, async (request, reply) => {
    const definition = activitiesByOperation.get(request.params.operation);
    if (!definition) throw notFound(`unknown activity operation ${JSON.stringify(request.params.operation)}`);
    const started = performance.now();
    let outcome;
    try {
      outcome = await submit(services, definition, {
        headers: request.headers,
        rawBody: rawBody(request.body),
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
    return reply.send(await runQuery(services, definition, request.headers, rawBody(request.body), request.ip));
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
  registerFrameRoutes(app, { signerPublicKey: services.signer.publicKeyHex, frameAncestors: options.frameAncestors ?? ["*"] });

  const openApi = openApiDocument();
  app.get("/openapi.json", async () => openApi);

  app.get("/health", async () => {
    await services.db.query("SELECT 1");
    return { status: "ok", version: VERSION, database: services.db.kind };
  });

  return app;
}

/** A message as an HTTP header value: printable ASCII (anything else \u-escaped), at most 2000 characters. */
function headerSafe(message: string): string {
  const ascii = message.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return ascii.length > 2000 ? `${ascii.slice(0, 1997)}...` : ascii;
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
