import type { ActivityDefinition } from "../definition.js";
import { createUsers } from "./create-users.js";

export const userActivities: ActivityDefinition[] = [createUsers];
