import { Type } from "@sinclair/typebox";
import { authenticateWithProvider } from "../../auth/oauth2-providers.js";
import { issueOidcToken } from "../../auth/oidc.js";
import { credentialBundle } from "../../crypto/bundles.js";
import { clientSecretContext, requireOauth2Credential } from "../../records/oauth2-credentials.js";
import { Id } from "../../schema/common.js";
import { defineActivity } from "../definition.js";
import { requireTargetKey } from "../shared/target-key.js";

const Required = (description: string) => Type.String({ minLength: 1, maxLength: 4096, description });

export const oauth2Authenticate = defineActivity({
  operation: "oauth2_authenticate",
  type: "ACTIVITY_TYPE_OAUTH2_AUTHENTICATE",
  intentKey: "oauth2AuthenticateIntent",
  resultKey: "oauth2AuthenticateResult",
  sdkMethod: "oauth2Authenticate",
  summary: "Exchange an OAuth 2.0 authorization code (PKCE) with X or Discord and return an OIDC token issued by Strongroom for that user",
  resource: "AUTH",
  action: "CREATE",
  parameters: Type.Object({
    oauth2CredentialId: Id("The OAuth 2.0 credential whose client id and secret are used"),
    authCode: Required("The authorization code the provider gave the user"),
    redirectUri: Required("The redirect URI used in the authorization request"),
    codeVerifier: Required("The PKCE code verifier"),
    nonce: Required("Set to sha256 of the session public key; copied into the token"),
    bearerTokenTargetPublicKey: Type.Optional(Type.String({ description: "An uncompressed P-256 key to which the provider's access token is encrypted (encrypted_bearer_token claim)" })),
  }),
  parentMayInitiate: true,
  async execute({ tx, organization, now, services }, params) {
    const target = params.bearerTokenTargetPublicKey === undefined ? undefined : requireTargetKey(params.bearerTokenTargetPublicKey, "bearerTokenTargetPublicKey");
    const credential = await requireOauth2Credential(tx, organization.id, params.oauth2CredentialId);
    const clientSecret = new TextDecoder().decode(services.kek.open(credential.sealed_client_secret, clientSecretContext(credential.id)));
    // The provider calls are the activity's input (bounded by OAUTH2_TIMEOUT_MS each), not side effects.
    const identity = await authenticateWithProvider(services.oauth, credential.provider, {
      clientId: credential.client_id,
      clientSecret,
      authCode: params.authCode,
      redirectUri: params.redirectUri,
      codeVerifier: params.codeVerifier,
    });
    const encryptedBearerToken = target ? await credentialBundle(new TextEncoder().encode(identity.accessToken), target) : undefined;
    const oidcToken = await issueOidcToken(
      services,
      { sub: identity.subject, aud: credential.client_id, nonce: params.nonce, ...(encryptedBearerToken ? { encrypted_bearer_token: encryptedBearerToken } : {}) },
      now,
    );
    return { oidcToken };
  },
});
