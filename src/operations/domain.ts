import type { ActivityDefinition } from "./activity-definition.js";
import type { QueryDefinition } from "./query-definition.js";
import type { VoteDefinition } from "./vote-definition.js";

/** One domain's operations: its activities and votes (`/public/v1/submit/<op>`) and its queries (`/public/v1/query/<op>`). */
export interface Domain {
  name: string;
  activities: ActivityDefinition[];
  /** approve_activity / reject_activity: served like activities, but votes on another activity. */
  votes?: VoteDefinition[];
  queries: QueryDefinition[];
}
