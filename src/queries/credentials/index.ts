import type { QueryDefinition } from "../definition.js";
import { getApiKey } from "./get-api-key.js";

export const credentialQueries: QueryDefinition[] = [getApiKey];
