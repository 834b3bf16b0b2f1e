import { Type } from "@sinclair/typebox";
import { InvalidEnvelopeError, openQuorumEnvelope } from "../../crypto/quorum-envelope.js";
import { invalidArgument } from "../../errors.js";
import { OAUTH2_PROVIDERS, clientSecretContext } from "../../records/oauth2-credential.js";
import { StringEnum } from "../../schema/common.js";
import type { Services } from "../../services.js";

export const Oauth2ProviderParam = StringEnum(OAUTH2_PROVIDERS, "The OAuth 2.0 provider");

export const Oauth2CredentialFields = {
  provider: Oauth2ProviderParam,
  clientId: Type.String({ minLength: 1, maxLength: 512, description: "The client id issued by the provider" }),
  encryptedClientSecret: Type.String({
    minLength: 1,
    maxLength: 16384,
    description:
      "The client secret, encrypted to Strongroom's encryption key (GET /public/v1/discovery/keys, encryptionPublicKey) with @turnkey/crypto's encryptOauth2ClientSecret",
  }),
};

/**
 * Opens the client secret the client encrypted to Strongroom's encryption key and seals it under the
 * key-encryption key for this credential. A secret that does not open is the caller's mistake: 400.
 */
export function sealClientSecret(
  services: Pick<Services, "encryptionKey" | "kek">,
  credentialId: string,
  encryptedClientSecret: string,
): string {
  let secret: Uint8Array;
  try {
    secret = openQuorumEnvelope(encryptedClientSecret, services.encryptionKey);
  } catch (error) {
    if (!(error instanceof InvalidEnvelopeError)) throw error;
    const description = `must be encryptOauth2ClientSecret(secret, <encryptionPublicKey of GET /public/v1/discovery/keys>) (${services.encryptionKey.publicKeyHex})`;
    throw invalidArgument(`encryptedClientSecret: the secret could not be decrypted: ${error.message}; it ${description}`, [
      { field: "encryptedClientSecret", description },
    ]);
  }
  if (secret.length === 0) {
    throw invalidArgument("encryptedClientSecret: the decrypted client secret is empty", [
      { field: "encryptedClientSecret", description: "must not be empty" },
    ]);
  }
  return services.kek.seal(secret, clientSecretContext(credentialId));
}
