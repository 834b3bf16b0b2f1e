import type { ActivityDefinition } from "../../operations/activity-definition.js";
import { sealServer } from "./submit/seal-server.js";

/**
 * Strongroom's own activities, outside the upstream API's paths: served at /strongroom/v1/submit/<operation>
 * (src/server/strongroom-queries.ts), voted on like any activity, absent from /public/v1 and the upstream tables.
 */
export const strongroomActivities: ActivityDefinition[] = [sealServer];
