import type { QueryDefinition } from "../definition.js";

export const activityQueries: QueryDefinition[] = [];
