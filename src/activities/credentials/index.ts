import type { ActivityDefinition } from "../definition.js";
import { createApiKeys } from "./create-api-keys.js";
import { createAuthenticators } from "./create-authenticators.js";
import { createOauthProviders } from "./create-oauth-providers.js";
import { deleteApiKeys } from "./delete-api-keys.js";
import { deleteAuthenticators } from "./delete-authenticators.js";
import { deleteOauthProviders } from "./delete-oauth-providers.js";

export const credentialActivities: ActivityDefinition[] = [
  createApiKeys,
  deleteApiKeys,
  createAuthenticators,
  deleteAuthenticators,
  createOauthProviders,
  deleteOauthProviders,
];
