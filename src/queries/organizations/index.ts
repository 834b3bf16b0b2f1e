import type { QueryDefinition } from "../definition.js";
import { getWhoami } from "./whoami.js";

export const organizationQueries: QueryDefinition[] = [getWhoami];
