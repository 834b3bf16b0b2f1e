import type { QueryDefinition } from "../definition.js";
import { getApiKey } from "./get-api-key.js";
import { getApiKeys } from "./get-api-keys.js";
import { getAuthenticator } from "./get-authenticator.js";
import { getAuthenticators } from "./get-authenticators.js";
import { getOauthProviders } from "./get-oauth-providers.js";

export const credentialQueries: QueryDefinition[] = [getApiKey, getApiKeys, getAuthenticator, getAuthenticators, getOauthProviders];
