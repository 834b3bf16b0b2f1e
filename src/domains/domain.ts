import type { ActivityDefinition } from "../pipeline/activity-definition.js";
import type { QueryDefinition } from "../pipeline/query-definition.js";

/** One domain's operations: its activities (`/public/v1/submit/<op>`) and its queries (`/public/v1/query/<op>`). */
export interface Domain {
  name: string;
  activities: ActivityDefinition[];
  queries: QueryDefinition[];
}
