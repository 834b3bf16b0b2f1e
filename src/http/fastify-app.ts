import { hostname } from "node:os";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { DestinationStream } from "pino";
import { logDestination, type LogFormat } from "./log-destination.js";
import { ApiError, errorReply, EXPLANATION_HEADER, GrpcCode, notFound, type ErrorBody, type ErrorMessageStyle } from "../errors.js";

/** What both HTTP servers, the API's and the auth proxy's, are configured with. */
export interface HttpAppOptions {
  logLevel?: string;
  bodyLimitBytes?: number;
  /** Where logs go (stdout by default). */
  logStream?: DestinationStream;
  /** LOG_FORMAT: pretty on a terminal and JSON otherwise (auto), or always one of them. */
  logFormat?: LogFormat;
  /** Addresses or CIDRs of proxies whose X-Forwarded-For is believed (TRUST_PROXY). */
  trustProxy?: string[];
  /** STRONGROOM_ERROR_MESSAGES: how error bodies are worded. */
  errorMessages?: ErrorMessageStyle;
  /** Fields every log line carries besides `pid` and `hostname` (a worker's `worker: n`, serve --workers). */
  logBindings?: Record<string, unknown>;
}

/** How one app answers an error it mapped to the API's shape: the body it sends (the auth proxy withholds identifiers). */
export type ErrorAnswer = (body: ErrorBody, error: unknown, request: FastifyRequest, reply: FastifyReply) => ErrorBody;

/**
 * A Fastify app as both of Strongroom's HTTP servers start: bodies kept as the exact bytes received (stamps
 * are verified over them; `rawBodyOf` reads them), the body limit, the client's address from X-Forwarded-For
 * only through TRUST_PROXY's proxies, no 503 while stopping (start.ts answers late requests itself), and every
 * error — the router's, a route's, an unknown path (`notFoundWhat`: "no such <what>") — in the API's shape.
 * Each app then adds its own routes, CORS and hooks.
 */
export function createHttpApp(options: HttpAppOptions & { notFoundWhat: string; answerError?: ErrorAnswer }): FastifyInstance {
  const app = Fastify({
    logger:
      options.logLevel === "silent"
        ? false
        : {
            level: options.logLevel ?? "info",
            stream: logDestination(options.logStream ?? process.stdout, options.logFormat),
            ...(options.logBindings ? { base: { pid: process.pid, hostname: hostname(), ...options.logBindings } } : {}),
          },
    bodyLimit: options.bodyLimitBytes ?? 2 * 1024 * 1024,
    return503OnClosing: false,
    routerOptions: { ignoreDuplicateSlashes: true },
    // Errors the router raises before any route runs (a malformed or over-long path).
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
    ...(options.trustProxy?.length ? { trustProxy: options.trustProxy } : {}),
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));

  app.setErrorHandler((error, request, reply) => {
    const mapped = errorReply(error, options.errorMessages);
    if (mapped?.explanation !== undefined) {
      // The body has the hosted wording; Strongroom's explanation stays where clients do not compare it.
      request.log.info({ explanation: mapped.explanation, code: mapped.body.code }, "error answered in the hosted wording");
      void reply.header(EXPLANATION_HEADER, headerSafe(mapped.explanation));
    }
    if (mapped)
      return reply.status(mapped.status).send(options.answerError ? options.answerError(mapped.body, error, request, reply) : mapped.body);
    request.log.error({ err: error }, "unhandled error");
    return reply.status(500).send(new ApiError(GrpcCode.INTERNAL, "internal error", "INTERNAL").toBody());
  });

  app.setNotFoundHandler((request, reply) =>
    reply.status(404).send(notFound(`no such ${options.notFoundWhat}: ${request.method} ${request.url}`).toBody()),
  );
  return app;
}

/** The request's body as received (empty when there was none). */
export const rawBodyOf = (request: FastifyRequest): Buffer => (Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0));

/** A message as an HTTP header value: printable ASCII (anything else \u-escaped), at most 2000 characters. */
function headerSafe(message: string): string {
  const ascii = message.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return ascii.length > 2000 ? `${ascii.slice(0, 1997)}...` : ascii;
}
