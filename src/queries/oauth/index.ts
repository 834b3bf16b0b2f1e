import type { QueryDefinition } from "../definition.js";
import { getOauth2Credential } from "./get-oauth2-credential.js";
import { listOauth2Credentials } from "./list-oauth2-credentials.js";

export const oauthQueries: QueryDefinition[] = [getOauth2Credential, listOauth2Credentials];
