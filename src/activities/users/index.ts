import type { ActivityDefinition } from "../definition.js";

export const userActivities: ActivityDefinition[] = [];
