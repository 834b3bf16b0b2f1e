import type { ActivityDefinition } from "../definition.js";

export const invitationActivities: ActivityDefinition[] = [];
