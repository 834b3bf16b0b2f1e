import { Type } from "@sinclair/typebox";
import { notFound, permissionDenied } from "../../errors.js";
import { queryAsProxy, submitAsProxy } from "../act.js";
import { sessionExpirationSeconds } from "../../domains/auth-proxy-config/configs.js";
import { defineEndpoint } from "../endpoint.js";
import { suborgOfOidcToken } from "../lookup.js";
import { requireMethod } from "../methods.js";

const Required = Type.String({ minLength: 1, maxLength: 8192 });

export const oauthLogin = defineEndpoint({
  path: "/v1/oauth_login",
  summary:
    "Log in with an OIDC token (oauth_login in the sub-organization whose user has that iss/sub/aud, unless organizationId names it); answers a session JWT",
  body: Type.Object({
    oidcToken: Required,
    publicKey: Type.String({ minLength: 1 }),
    invalidateExisting: Type.Optional(Type.Boolean()),
    organizationId: Type.Optional(Type.String({ minLength: 1 })),
  }),
  async handle(ctx, body) {
    requireMethod(ctx, "oauth");
    const organizationId = body.organizationId ?? (await suborgOfOidcToken(ctx, body.oidcToken));
    const { result } = await submitAsProxy(ctx, "oauth_login", organizationId, {
      oidcToken: body.oidcToken,
      publicKey: body.publicKey,
      expirationSeconds: String(sessionExpirationSeconds(ctx.settings)),
      ...(body.invalidateExisting !== undefined ? { invalidateExisting: body.invalidateExisting } : {}),
    });
    return { session: result.session };
  },
});

interface Oauth2Credential {
  oauth2CredentialId: string;
  provider: string;
  clientId: string;
}

export const oauth2Authenticate = defineEndpoint({
  path: "/v1/oauth2_authenticate",
  summary:
    "Exchange an OAuth 2.0 code (X, Discord) with the organization's credential for that provider and client id; answers an OIDC token",
  body: Type.Object({
    provider: Required,
    authCode: Required,
    redirectUri: Required,
    codeVerifier: Required,
    nonce: Required,
    clientId: Required,
  }),
  async handle(ctx, body) {
    requireMethod(ctx, "oauth");
    const clientIds = Object.values(ctx.settings.walletKitSettings?.oauthClientIds ?? {});
    if (!clientIds.includes(body.clientId)) {
      throw permissionDenied(
        `clientId ${JSON.stringify(body.clientId)} is not one of the OAuth client ids of auth proxy config ${ctx.config.id} (walletKitSettings.oauthClientIds)`,
        "OAUTH_CLIENT_ID_NOT_ALLOWED",
      );
    }
    const { oauth2Credentials } = (await queryAsProxy(ctx, "list_oauth2_credentials", { organizationId: ctx.config.organization_id })) as {
      oauth2Credentials: Oauth2Credential[];
    };
    const credential = oauth2Credentials.find((c) => c.provider === body.provider && c.clientId === body.clientId);
    if (!credential) {
      throw notFound(
        `organization ${ctx.config.organization_id} has no OAuth 2.0 credential for ${body.provider} with client id ${body.clientId}; create_oauth2_credential adds one`,
        "OAUTH2_CREDENTIAL_NOT_FOUND",
      );
    }
    const { result } = await submitAsProxy(ctx, "oauth2_authenticate", ctx.config.organization_id, {
      oauth2CredentialId: credential.oauth2CredentialId,
      authCode: body.authCode,
      redirectUri: body.redirectUri,
      codeVerifier: body.codeVerifier,
      nonce: body.nonce,
    });
    return { oidcToken: result.oidcToken };
  },
});
