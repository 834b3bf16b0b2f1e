import type { QueryDefinition } from "./definition.js";
import { getApiKey } from "./get-api-key.js";
import { getWhoami } from "./whoami.js";

/** Every query Strongroom serves. */
export const queryDefinitions: QueryDefinition[] = [getApiKey, getWhoami].sort((a, b) => a.operation.localeCompare(b.operation));

export const queriesByOperation = new Map(queryDefinitions.map((d) => [d.operation, d]));
