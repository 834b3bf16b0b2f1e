import type { Domain } from "../../operations/domain.js";
import { createOauth2Credential } from "./submit/create-oauth2-credential.js";
import { deleteOauth2Credential } from "./submit/delete-oauth2-credential.js";
import { getOauth2Credential } from "./query/get-oauth2-credential.js";
import { listOauth2Credentials } from "./query/list-oauth2-credentials.js";
import { oauth } from "./submit/oauth.js";
import { oauth2Authenticate } from "./submit/oauth2-authenticate.js";
import { oauthLogin } from "./submit/oauth-login.js";
import { updateOauth2Credential } from "./submit/update-oauth2-credential.js";

export const oauthDomain: Domain = {
  name: "oauth",
  activities: [createOauth2Credential, updateOauth2Credential, deleteOauth2Credential, oauth2Authenticate, oauthLogin, oauth],
  queries: [getOauth2Credential, listOauth2Credentials],
};
