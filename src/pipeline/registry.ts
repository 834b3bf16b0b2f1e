import { domains } from "../domains/index.js";
import { strongroomActivities } from "../domains/custody/index.js";
import type { ActivityDefinition } from "../operations/activity-definition.js";
import type { QueryDefinition } from "../operations/query-definition.js";
import type { VoteDefinition } from "../operations/vote-definition.js";
import type { ScopedCredentialType } from "../operations/signers.js";

const byOperation = <T extends { operation: string }>(a: T, b: T) => a.operation.localeCompare(b.operation);

/** What `/public/v1/submit/<operation>` serves: an activity, or a vote on one (approve_activity, reject_activity). */
export type SubmitDefinition = ActivityDefinition | VoteDefinition;

/**
 * Every operation of `/public/v1/submit/`, activities and votes, from the domains' indexes; the router, the
 * OpenAPI document, the docs table and the compatibility tests read this.
 */
export const activityDefinitions: SubmitDefinition[] = domains.flatMap((d) => [...d.activities, ...(d.votes ?? [])]).sort(byOperation);

export const activitiesByOperation = new Map<string, SubmitDefinition>(activityDefinitions.map((d) => [d.operation, d]));

/** The activities a stored activity's type names (votes are never stored as activities), Strongroom's own included. */
export const activitiesByType = new Map(
  [...domains.flatMap((d) => d.activities), ...strongroomActivities].flatMap((d) =>
    [d, ...(d.earlierVersions ?? [])].map((version) => [version.type, version] as const),
  ),
);

/** Every query Strongroom serves, from the domains' indexes. */
export const queryDefinitions: QueryDefinition[] = domains.flatMap((d) => d.queries).sort(byOperation);

export const queriesByOperation = new Map(queryDefinitions.map((d) => [d.operation, d]));

/** The operations whose definition lets a scoped credential type use them (SignerRules.scopedCredentials). */
export const operationsOfScopedCredential = (type: ScopedCredentialType): string[] =>
  [...activityDefinitions, ...queryDefinitions].filter((d) => d.scopedCredentials?.includes(type)).map((d) => d.operation);
