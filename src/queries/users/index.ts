import type { QueryDefinition } from "../definition.js";

export const userQueries: QueryDefinition[] = [];
