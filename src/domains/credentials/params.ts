import { Type, type Static } from "@sinclair/typebox";
import { AUTHENTICATOR_TRANSPORTS, ApiKeyCurve, Int64String, Name, StringEnum } from "../../schema/common.js";

/** Per-user limits from the API's documented resource limits. */
export const LIMITS = {
  longLivedApiKeysPerUser: 10,
  expiringApiKeysPerUser: 10,
  authenticatorsPerUser: 10,
  oauthProvidersPerUser: 10,
} as const;

export const ApiKeyParams = Type.Object({
  apiKeyName: Name("Human-readable name for an API key"),
  publicKey: Type.String({ minLength: 1, maxLength: 256 }),
  curveType: ApiKeyCurve,
  expirationSeconds: Type.Optional(Int64String("How long the key lasts, in seconds")),
});

export const AttestationParams = Type.Object({
  credentialId: Type.String({ minLength: 1 }),
  clientDataJson: Type.String({ minLength: 1 }),
  attestationObject: Type.String({ minLength: 1 }),
  transports: Type.Array(StringEnum(AUTHENTICATOR_TRANSPORTS)),
});

export const AuthenticatorParams = Type.Object({
  authenticatorName: Name("Human-readable name for an authenticator"),
  challenge: Type.String({ minLength: 1 }),
  attestation: AttestationParams,
});

export const OidcClaims = Type.Object({
  iss: Type.String({ minLength: 1 }),
  sub: Type.String({ minLength: 1 }),
  aud: Type.String({ minLength: 1 }),
});

export const OauthProviderParams = Type.Object({
  providerName: Name("Human-readable name of the provider"),
  oidcToken: Type.Optional(Type.String({ minLength: 1 })),
  oidcClaims: Type.Optional(OidcClaims),
});

export type ApiKeyInput = Static<typeof ApiKeyParams>;
export type AuthenticatorInput = Static<typeof AuthenticatorParams>;
export type OauthProviderInput = Static<typeof OauthProviderParams>;
