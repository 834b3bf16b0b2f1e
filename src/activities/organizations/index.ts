import type { ActivityDefinition } from "../definition.js";

export const organizationActivities: ActivityDefinition[] = [];
