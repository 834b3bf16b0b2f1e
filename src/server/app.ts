import cors from "@fastify/cors";
import Fastify, { type FastifyInstance, type FastifyReply } from "fastify";
import { activitiesByOperation } from "../pipeline/registry.js";
import { submit } from "../pipeline/submit.js";
import { ApiError, errorReply, GrpcCode, notFound } from "../errors.js";
import { queriesByOperation } from "../pipeline/registry.js";
import { runQuery } from "../pipeline/run-query.js";
import type { Services } from "../services.js";
import { createMetrics } from "./metrics.js";
import { webhookJwks } from "../domains/webhooks/signing.js";
import { openApiDocument } from "./openapi.js";
import { registerOidcRoutes } from "./oidc-routes.js";

export interface AppOptions {
  logLevel?: string;
  bodyLimitBytes?: number;
  /** Where logs go (stdout by default). */
  logStream?: NodeJS.WritableStream;
  /** Addresses or CIDRs of proxies whose X-Forwarded-For is believed (TRUST_PROXY). */
  trustProxy?: string[];
}

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
  const metrics = createMetrics();

  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));

  await app.register(cors, {
    origin: true,
    methods: ["GET", "POST", "OPTIONS"],
    allowedHeaders: CORS_HEADERS,
    maxAge: 86400,
  });

  app.addHook("onResponse", async (request, reply) => {
    metrics.requestDuration.observe(
      { route: request.routeOptions.url ?? "unmatched", status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });

  app.setErrorHandler((error, request, reply) => {
    const mapped = errorReply(error);
    if (mapped) return reply.status(mapped.status).send(mapped.body);
    request.log.error({ err: error }, "unhandled error");
    return reply.status(500).send(new ApiError(GrpcCode.INTERNAL, "internal error", "INTERNAL").toBody());
  });

  app.setNotFoundHandler((request, reply) => {
    const error = notFound(`no such endpoint: ${request.method} ${request.url}`);
    return reply.status(404).send(error.toBody());
  });

  const rawBody = (body: unknown): Buffer => (Buffer.isBuffer(body) ? body : Buffer.alloc(0));

  app.post<{ Params: { operation: string } }>("/public/v1/submit/:operation", async (request, reply) => {
    const definition = activitiesByOperation.get(request.params.operation);
    if (!definition) throw notFound(`unknown activity operation ${JSON.stringify(request.params.operation)}`);
    const outcome = await submit(services, definition, {
      headers: request.headers,
      rawBody: rawBody(request.body),
      clientIp: request.ip,
      onError: (error) => request.log.error({ err: error, activityType: definition.type }, "activity handler failed"),
    });
    metrics.activities.inc({ type: definition.type, status: outcome.activity.status });
    return reply.send(outcome);
  });

  app.post<{ Params: { operation: string } }>("/public/v1/query/:operation", async (request, reply) => {
    const definition = queriesByOperation.get(request.params.operation);
    if (!definition) throw notFound(`unknown query operation ${JSON.stringify(request.params.operation)}`);
    return reply.send(await runQuery(services, definition, request.headers, rawBody(request.body), request.ip));
  });

  app.get("/public/v1/discovery/keys", async () => ({
    signerPublicKey: services.signer.publicKeyHex,
    encryptionPublicKey: services.encryptionKey.publicKeyHex,
  }));
  app.get("/public/v1/discovery/webhooks/jwks", async (_request, reply) => {
    void reply.header("cache-control", "public, max-age=86400, s-maxage=86400, stale-if-error=604800");
    return webhookJwks(services.webhooks.signingKey);
  });

  registerOidcRoutes(app, services);

  const openApi = openApiDocument();
  app.get("/openapi.json", async () => openApi);

  app.get("/health", async () => {
    await services.db.query("SELECT 1");
    return { status: "ok", database: services.db.kind };
  });

  app.get("/metrics", async (_request, reply) => {
    reply.header("content-type", metrics.registry.contentType);
    return metrics.registry.metrics();
  });

  return app;
}
