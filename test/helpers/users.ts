import { generateP256KeyPair } from "@turnkey/crypto";
import type { TestServer } from "./server.js";

export type ApiKeyPair = { publicKey: string; privateKey: string };
type SdkClient = ReturnType<TestServer["client"]>;

/** The SDK credentials (apiPublicKey, apiPrivateKey) of an API key pair. */
export const credentialsOf = (key: ApiKeyPair) => ({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey });

/**
 * The createUsers / rootUsers entry of a user whose one credential is a P-256 API key
 * (named after the user unless `apiKeyName` says otherwise).
 */
export function userWithApiKey(name: string, publicKey: string, options: { apiKeyName?: string; userEmail?: string } = {}) {
  return {
    userName: name,
    ...(options.userEmail === undefined ? {} : { userEmail: options.userEmail }),
    apiKeys: [{ apiKeyName: options.apiKeyName ?? name, publicKey, curveType: "API_KEY_CURVE_P256" as const }],
    authenticators: [],
    oauthProviders: [],
  };
}

/**
 * Creates, through `client`, a user holding one new P-256 API key (named `${name} key` unless told otherwise).
 * Returns the user's id, the key pair, and the SDK credentials that act as them.
 */
export async function createUserWithApiKey(
  client: Pick<SdkClient, "createUsers">,
  name: string,
  options: { userTags?: string[]; userEmail?: string; apiKeyName?: string } = {},
) {
  const key = generateP256KeyPair();
  const { apiKeyName = `${name} key`, userEmail, userTags = [] } = options;
  const { userIds } = await client.createUsers({
    users: [{ ...userWithApiKey(name, key.publicKey, { apiKeyName, userEmail }), userTags }],
  });
  return { userId: userIds[0]!, key, credentials: credentialsOf(key) };
}
