import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { createHttpApp, rawBodyOf, type HttpAppOptions } from "../http/fastify-app.js";
import { SealedError } from "../crypto/keyring/keyring.js";
import { parseJsonBody } from "../pipeline/steps/parse.js";
import { permissionDenied, RateLimitedError, unauthenticated } from "../errors.js";
import { addressKey, RequestBudget } from "../rate-limits/load-shedding.js";
import { requireOrganization } from "../records/organization.js";
import { validate } from "../schema/validation.js";
import type { Services } from "../services.js";
import { allowedOrigins, findAuthProxyConfig, type AuthProxyConfigRow } from "../domains/auth-proxy-config/configs.js";
import type { ProxyContext, ProxyEndpoint } from "./endpoint.js";
import { account } from "./endpoints/account.js";
import { oauth2Authenticate, oauthLogin } from "./endpoints/oauth.js";
import { otpInit, otpInitV2, otpLoginV1, otpLoginV2, otpVerify, otpVerifyV2 } from "./endpoints/otp.js";
import { signupV1, signupV2 } from "./endpoints/signup.js";
import { walletKitClientParams, walletKitConfig } from "./endpoints/wallet-kit.js";
import { withholdIdentifiers } from "./withheld-identifiers.js";

/** Every endpoint of the auth proxy (auth_proxy.swagger.json), all POST. */
export const proxyEndpoints: ProxyEndpoint[] = [
  signupV2,
  signupV1,
  account,
  walletKitConfig,
  walletKitClientParams,
  otpInit,
  otpInitV2,
  otpVerify,
  otpVerifyV2,
  otpLoginV1,
  otpLoginV2,
  oauthLogin,
  oauth2Authenticate,
];

const CONFIG_HEADER = "x-auth-proxy-config-id";
const ALLOWED_HEADERS = "Content-Type, X-Auth-Proxy-Config-ID, X-Captcha-Token";
/** What a page may read of an answer besides the CORS-safelisted headers: when to try again after a 429. */
const EXPOSED_HEADERS = "Retry-After";

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The config named by X-Auth-Proxy-Config-Id (any case): missing or unknown → 401, disabled → 403. */
async function requireConfig(services: Services, request: FastifyRequest): Promise<AuthProxyConfigRow> {
  const configId = headerValue(request, CONFIG_HEADER)?.trim();
  if (!configId)
    throw unauthenticated(
      "the X-Auth-Proxy-Config-Id header is required: it names the auth proxy config (update_auth_proxy_config answers it)",
      "AUTH_PROXY_CONFIG_MISSING",
    );
  const config = await findAuthProxyConfig(services.db, configId);
  if (!config)
    throw unauthenticated(`no auth proxy config ${JSON.stringify(configId)} exists on this server`, "AUTH_PROXY_CONFIG_NOT_FOUND");
  if (!config.enabled) {
    throw permissionDenied(
      `auth proxy config ${configId} of organization ${config.organization_id} is disabled; enable_auth_proxy turns it on again`,
      "AUTH_PROXY_DISABLED",
    );
  }
  return config;
}

/**
 * Browsers send Origin; it must be one of the config's allowed origins (or the list is `*`). Requests
 * without Origin do not come from a web page (Origin only constrains browsers; any other client could
 * send any value), so they are served.
 */
function checkOrigin(config: AuthProxyConfigRow, request: FastifyRequest, reply: FastifyReply): void {
  const origin = headerValue(request, "origin");
  if (origin === undefined) return;
  const allowed = allowedOrigins(config.settings);
  if (!allowed.includes("*") && !allowed.includes(origin)) {
    throw permissionDenied(
      `origin ${origin} is not an allowed origin of auth proxy config ${config.id} (allowed: ${allowed.join(", ")})`,
      "ORIGIN_NOT_ALLOWED",
    );
  }
  void reply.header("access-control-allow-origin", origin).header("vary", "Origin");
}

/**
 * A refusal is readable by the page that caused it: without Access-Control-Allow-Origin the browser hides
 * it and the SDK reports only "Failed to fetch". Refused before the config's origins are known (no or
 * unknown config, a rate limit, a disallowed origin), the request's own Origin is reflected: that exposes
 * the refusal to the page that sent it and nothing else, and the request is refused all the same.
 * Successful answers carry the header only when checkOrigin allowed the origin.
 */
function refusalReadableByItsPage(request: FastifyRequest, reply: FastifyReply): void {
  const origin = headerValue(request, "origin");
  if (origin === undefined || reply.statusCode < 400 || reply.hasHeader("access-control-allow-origin")) return;
  void reply.header("access-control-allow-origin", origin).header("vary", "Origin");
}

/**
 * The auth proxy: a second HTTP server (AUTH_PROXY_PORT) for browser and app clients that hold no API key.
 * It finds the config by X-Auth-Proxy-Config-Id, checks the origin, and acts by submitting real activities
 * stamped with the config's proxy key, so policies, idempotency, webhooks and the audit trail all apply.
 */
export async function buildAuthProxyApp(services: Services, options: HttpAppOptions = {}): Promise<FastifyInstance> {
  /** The config each request named, once found: its organization's id is public (/v1/wallet_kit_config answers it). */
  const configOf = new WeakMap<FastifyRequest, AuthProxyConfigRow>();
  const app = createHttpApp({
    ...options,
    // STRONGROOM_ERROR_MESSAGES words the API's errors as the hosted API does; the auth proxy's keep Strongroom's.
    errorMessages: "explained",
    notFoundWhat: "auth proxy endpoint",
    // An error names nothing the caller did not send (withheld-identifiers.ts); a 429 says when to try again.
    answerError: (body, error, request, reply) => {
      if (error instanceof RateLimitedError) void reply.header("retry-after", String(error.retryAfterSeconds));
      const sent = [
        rawBodyOf(request).toString("utf8"),
        headerValue(request, CONFIG_HEADER) ?? "",
        configOf.get(request)?.organization_id ?? "",
      ];
      return withholdIdentifiers(body, sent);
    },
  });
  // Sealed (src/server/seal-routes.ts): the auth proxy answers nothing but 503 until the API is unsealed.
  app.addHook("onRequest", async (request) => {
    if (services.custody.sealed) throw new SealedError(`the auth proxy's ${request.url.split("?", 1)[0]}`);
  });
  const { limits } = services;
  const perAddress = new RequestBudget(limits.proxyRequestsPerAddress, limits.proxyWindowSeconds, (key) => `from client address ${key}`);
  const perConfig = new RequestBudget(limits.proxyRequestsPerConfig, limits.proxyWindowSeconds, (key) => `for auth proxy config ${key}`);

  // Preflights carry no header values, so the config (and its origins) is unknown here: every origin may
  // ask, and the request itself is then checked against the config's allowed origins.
  app.options("*", async (request, reply) => {
    const origin = headerValue(request, "origin");
    return reply
      .status(204)
      .header("access-control-allow-origin", origin ?? "*")
      .header("access-control-allow-methods", "POST, OPTIONS")
      .header("access-control-allow-headers", ALLOWED_HEADERS)
      .header("access-control-max-age", "86400")
      .header("vary", "Origin")
      .send();
  });

  app.addHook("onSend", async (request, reply) => {
    refusalReadableByItsPage(request, reply);
    if (reply.hasHeader("access-control-allow-origin")) void reply.header("access-control-expose-headers", EXPOSED_HEADERS);
  });

  for (const endpoint of proxyEndpoints) {
    app.post(endpoint.path, async (request, reply) => {
      // Shed load before any work: the address first (before the config is looked up), then the config.
      const clientAddress = addressKey(request.ip);
      perAddress.take(clientAddress, services.clock().getTime());
      const config = await requireConfig(services, request);
      configOf.set(request, config);
      perConfig.take(config.id, services.clock().getTime());
      checkOrigin(config, request, reply);
      const raw = rawBodyOf(request);
      // @turnkey/core posts the wallet kit requests with no body at all.
      const body = raw.length === 0 ? {} : parseJsonBody(raw);
      const input = validate(endpoint.body, body, "");
      const ctx: ProxyContext = {
        services,
        config,
        clientAddress,
        settings: config.settings,
        organization: await requireOrganization(services.db, config.organization_id),
        onError: (error) => request.log.error({ err: error, endpoint: endpoint.path }, "activity handler failed"),
        log: request.log,
      };
      return reply.send(await endpoint.handle(ctx, input));
    });
  }
  app.get("/health", async () => ({ status: "ok" }));
  return app;
}
