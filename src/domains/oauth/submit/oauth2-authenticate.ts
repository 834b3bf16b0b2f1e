import { Type } from "@sinclair/typebox";
import { authenticateWithProvider, type ProviderIdentity } from "../../../auth/oauth2-providers.js";
import { issueOidcToken } from "../../../auth/oidc.js";
import { credentialBundle } from "../../../crypto/bundles.js";
import { clientSecretContext, requireOauth2Credential, type Oauth2CredentialRow } from "../../../records/oauth2-credential.js";
import { failedPrecondition } from "../../../errors.js";
import { Id } from "../../../schema/common.js";
import type { Services } from "../../../services.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { requireTargetKey } from "../../../crypto/target-key.js";

const Required = (description: string) => Type.String({ minLength: 1, maxLength: 4096, description });

export const oauth2Authenticate = defineActivity({
  operation: "oauth2_authenticate",
  type: "ACTIVITY_TYPE_OAUTH2_AUTHENTICATE",
  intentKey: "oauth2AuthenticateIntent",
  resultKey: "oauth2AuthenticateResult",
  // The code and its PKCE verifier redeem the user's authorization once; the OIDC token logs them in.
  secretFields: { intent: ["authCode", "codeVerifier"], result: ["oidcToken"] },
  result: Type.Object({ oidcToken: Type.String() }),
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
    bearerTokenTargetPublicKey: Type.Optional(
      Type.String({
        description: "An uncompressed P-256 key to which the provider's access token is encrypted (encrypted_bearer_token claim)",
      }),
    ),
  }),
  parentMayInitiate: true,
  validate: async (_ctx, params) => {
    if (params.bearerTokenTargetPublicKey !== undefined) requireTargetKey(params.bearerTokenTargetPublicKey, "bearerTokenTargetPublicKey");
  },
  // The provider calls (up to two, OAUTH2_TIMEOUT_MS each) redeem the code: they happen once the activity is
  // allowed (never for a denied one or one waiting for consensus), once, and outside the transaction.
  async prepare(services, params, organization): Promise<PreparedExchange> {
    try {
      const credential = await requireOauth2Credential(services.db, organization.id, params.oauth2CredentialId);
      return { credential, identity: await exchangeCode(services, credential, params) };
    } catch (error) {
      return { error };
    }
  },
  async execute({ tx, organization, now, services }, params, prepared) {
    const target =
      params.bearerTokenTargetPublicKey === undefined
        ? undefined
        : requireTargetKey(params.bearerTokenTargetPublicKey, "bearerTokenTargetPublicKey");
    const credential = await requireOauth2Credential(tx, organization.id, params.oauth2CredentialId);
    // What the provider answered before the transaction is this activity's input (a refusal is thrown here, in order).
    if ("error" in prepared) throw prepared.error;
    if (prepared.credential.client_id !== credential.client_id || prepared.credential.provider !== credential.provider) {
      throw failedPrecondition(
        `oauth2CredentialId: OAuth 2.0 credential ${credential.id} changed while the code was being exchanged; try again`,
      );
    }
    const { identity } = prepared;
    const encryptedBearerToken = target ? await credentialBundle(new TextEncoder().encode(identity.accessToken), target) : undefined;
    const oidcToken = await issueOidcToken(
      services,
      {
        sub: identity.subject,
        aud: credential.client_id,
        nonce: params.nonce,
        ...(encryptedBearerToken ? { encrypted_bearer_token: encryptedBearerToken } : {}),
      },
      now,
    );
    return { oidcToken };
  },
});

type PreparedExchange = { credential: Oauth2CredentialRow; identity: ProviderIdentity } | { error: unknown };

function exchangeCode(
  services: Services,
  credential: Oauth2CredentialRow,
  params: { authCode: string; redirectUri: string; codeVerifier: string },
): Promise<ProviderIdentity> {
  const clientSecret = new TextDecoder().decode(services.kek.open(credential.sealed_client_secret, clientSecretContext(credential.id)));
  return authenticateWithProvider(services.oauth, credential.provider, {
    clientId: credential.client_id,
    clientSecret,
    authCode: params.authCode,
    redirectUri: params.redirectUri,
    codeVerifier: params.codeVerifier,
  });
}
