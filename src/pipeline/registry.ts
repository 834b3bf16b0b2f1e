import { domains } from "../domains/index.js";
import type { ActivityDefinition } from "./activity-definition.js";
import type { QueryDefinition } from "./query-definition.js";

const byOperation = <T extends { operation: string }>(a: T, b: T) => a.operation.localeCompare(b.operation);

/** Every activity Strongroom serves, from the domains' indexes; the router, the docs table and the compatibility tests read this. */
export const activityDefinitions: ActivityDefinition[] = domains.flatMap((d) => d.activities).sort(byOperation);

export const activitiesByOperation = new Map(activityDefinitions.map((d) => [d.operation, d]));

export const activitiesByType = new Map(activityDefinitions.map((d) => [d.type, d]));

/** Every query Strongroom serves, from the domains' indexes. */
export const queryDefinitions: QueryDefinition[] = domains.flatMap((d) => d.queries).sort(byOperation);

export const queriesByOperation = new Map(queryDefinitions.map((d) => [d.operation, d]));
