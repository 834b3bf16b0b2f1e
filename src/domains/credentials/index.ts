import type { Domain } from "../../operations/domain.js";
import { createApiKeys } from "./submit/create-api-keys.js";
import { createAuthenticators } from "./submit/create-authenticators.js";
import { createOauthProviders } from "./submit/create-oauth-providers.js";
import { deleteApiKeys } from "./submit/delete-api-keys.js";
import { deleteAuthenticators } from "./submit/delete-authenticators.js";
import { deleteOauthProviders } from "./submit/delete-oauth-providers.js";
import { getApiKey } from "./query/get-api-key.js";
import { getApiKeys } from "./query/get-api-keys.js";
import { getAuthenticator } from "./query/get-authenticator.js";
import { getAuthenticators } from "./query/get-authenticators.js";
import { getOauthProviders } from "./query/get-oauth-providers.js";

export const credentialsDomain: Domain = {
  name: "credentials",
  activities: [createApiKeys, deleteApiKeys, createAuthenticators, deleteAuthenticators, createOauthProviders, deleteOauthProviders],
  queries: [getApiKey, getApiKeys, getAuthenticator, getAuthenticators, getOauthProviders],
};
