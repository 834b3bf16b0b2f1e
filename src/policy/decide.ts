import type { ActivityDefinition } from "../activities/definition.js";
import type { Principal } from "../auth/authenticate.js";
import { permissionDenied } from "../errors.js";
import type { OrganizationRow } from "../records/organizations.js";

export type Decision = { outcome: "allow" } | { outcome: "consensus-needed" };

/**
 * The one place that decides whether a principal may perform an activity. Until the policy
 * engine lands it applies the documented defaults: the root quorum acts; everyone else is
 * implicitly denied, except for managing their own credentials; a parent organization's
 * credentials are read-only in its sub-organizations.
 */
export function decide(definition: ActivityDefinition, params: unknown, principal: Principal, organization: OrganizationRow): Decision {
  const who = `user ${principal.user.id} (${JSON.stringify(principal.user.name)})`;
  if (principal.viaParent) {
    throw permissionDenied(
      `${who} belongs to the parent organization ${principal.user.organizationId}, which has read-only access to sub-organization ${organization.id}: ${definition.type} is not authorized`,
    );
  }
  if (principal.user.isRoot) {
    return organization.root_quorum_threshold > 1 ? { outcome: "consensus-needed" } : { outcome: "allow" };
  }
  if (definition.rootQuorumOnly) {
    throw permissionDenied(`${definition.type} can only be performed by the root quorum of organization ${organization.id}; ${who} is not in it`);
  }
  const selfTarget = definition.selfServiceUserId?.(params as never);
  if (selfTarget !== undefined && selfTarget === principal.user.id) return { outcome: "allow" };
  throw permissionDenied(
    `${who} is not authorized to perform ${definition.type} in organization ${organization.id}: no policy allows it (implicit deny)`,
  );
}
