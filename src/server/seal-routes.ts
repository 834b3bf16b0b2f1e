import type { FastifyInstance } from "fastify";
import type { Custody } from "../crypto/keyring/custody.js";
import { SealedError } from "../crypto/keyring/keyring.js";
import { invalidArgument } from "../errors.js";
import { rawBodyOf } from "../http/fastify-app.js";

export const SEAL_STATUS_ROUTE = "/strongroom/v1/seal-status";
export const UNSEAL_ROUTE = "/strongroom/v1/unseal";

/** The console's static files: served while sealed too, so an operator can unseal from it (as Vault's UI does). */
const CONSOLE_ROUTES = new Set(["/", "/console", "/console/", "/console/assets/:name"]);

/** The body of POST /strongroom/v1/unseal, as Vault's: {"key": "<one key share>"}, or {"reset": true}. */
function unsealBody(raw: Buffer): { key?: string; reset?: boolean } {
  let body: unknown;
  try {
    body = JSON.parse(raw.toString("utf8") || "null");
  } catch {
    body = undefined;
  }
  const violation = { field: "key", description: 'the body is {"key": "<one key share>"}, or {"reset": true} to forget the shares given' };
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw invalidArgument("the body must be a JSON object", [violation]);
  const { key, reset } = body as Record<string, unknown>;
  if (reset === true) return { reset: true };
  if (typeof key !== "string") throw invalidArgument('key: a key share (a string) is required: {"key": "<share>"}', [violation]);
  return { key };
}

/**
 * The seal's routes, and the gate in front of every other route: while the process is sealed, everything but
 * GET /strongroom/v1/seal-status, POST /strongroom/v1/unseal and the console's static files answers 503 in the
 * API's error shape (health included, so a load balancer skips a sealed process).
 */
export function registerSealRoutes(app: FastifyInstance, custody: Custody): void {
  app.addHook("onRequest", async (request) => {
    if (!custody.sealed) return;
    const route = request.routeOptions.url;
    if (route === SEAL_STATUS_ROUTE || route === UNSEAL_ROUTE || (request.method === "GET" && route && CONSOLE_ROUTES.has(route))) return;
    throw new SealedError(`${request.method} ${request.url.split("?", 1)[0]}`);
  });
  app.get(SEAL_STATUS_ROUTE, async () => custody.status());
  app.post(UNSEAL_ROUTE, async (request) => {
    const body = unsealBody(rawBodyOf(request));
    return body.reset ? custody.resetProgress() : custody.submitShare(body.key!);
  });
}
