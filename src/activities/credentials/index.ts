import type { ActivityDefinition } from "../definition.js";
import { createApiKeys } from "./create-api-keys.js";

export const credentialActivities: ActivityDefinition[] = [createApiKeys];
