import type { FastifyInstance } from "fastify";
import { DISCOVERY_PATH, JWKS_PATH, oidcJwks, openIdConfiguration } from "../auth/oidc.js";
import type { Services } from "../services.js";

/** Strongroom as an OIDC issuer: discovery and JWKS for the tokens oauth2_authenticate issues. */
export function registerOidcRoutes(app: FastifyInstance, services: Services): void {
  app.get(DISCOVERY_PATH, async (_request, reply) => {
    void reply.header("cache-control", "public, max-age=3600");
    return openIdConfiguration(services.oauth.issuer);
  });
  app.get(JWKS_PATH, async (_request, reply) => {
    void reply.header("cache-control", "public, max-age=3600");
    return oidcJwks(services.signer);
  });
}
