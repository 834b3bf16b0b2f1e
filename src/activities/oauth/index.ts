import type { ActivityDefinition } from "../definition.js";
import { createOauth2Credential } from "./create-oauth2-credential.js";
import { deleteOauth2Credential } from "./delete-oauth2-credential.js";
import { oauth } from "./oauth.js";
import { oauth2Authenticate } from "./oauth2-authenticate.js";
import { oauthLogin } from "./oauth-login.js";
import { updateOauth2Credential } from "./update-oauth2-credential.js";

export const oauthActivities: ActivityDefinition[] = [
  createOauth2Credential,
  updateOauth2Credential,
  deleteOauth2Credential,
  oauth2Authenticate,
  oauthLogin,
  oauth,
];
