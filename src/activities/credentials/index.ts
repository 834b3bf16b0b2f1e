import type { ActivityDefinition } from "../definition.js";

export const credentialActivities: ActivityDefinition[] = [];
