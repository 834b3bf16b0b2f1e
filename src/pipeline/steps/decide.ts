import type { Principal } from "../../auth/authenticate.js";
import { requireOrganization, type OrganizationRow } from "../../domains/organizations/organizations.js";
import { approvalOf, type StoredVote } from "../../domains/activities/votes.js";
import { decide, type Approval, type Decision } from "../../policy/decide.js";
import type { Queryable } from "../../store/database.js";
import type { ActivityDefinition } from "../../domains/activity-definition.js";

/** The approval a request's own stamp carries: its user and credential. */
export function approvalOfPrincipal(principal: Principal): Approval {
  return {
    userId: principal.user.id,
    isRoot: principal.user.isRoot,
    credential: {
      id: principal.credential.id,
      type: principal.credential.type,
      publicKey: principal.credential.publicKey,
      credentialId: principal.credential.credentialId,
    },
  };
}

/**
 * Step "decide" for a new activity: its submitter's approval against the policies and root quorum. A
 * parent-initiated authentication activity is the parent's decision: its policies, its root quorum. It reads
 * only; `db` is the store (the decision before preparing) or the activity's transaction (the one that counts).
 */
export async function decideSubmission(
  db: Queryable,
  submission: {
    definition: ActivityDefinition;
    params: Record<string, unknown>;
    principal: Principal;
    organization: OrganizationRow;
    now: Date;
  },
  first?: StoredVote,
): Promise<Decision> {
  const { definition, params, principal, organization, now } = submission;
  const deciding = principal.viaParent ? await requireOrganization(db, principal.user.organizationId) : organization;
  const approval = first ? { ...approvalOf(first), isRoot: principal.user.isRoot } : approvalOfPrincipal(principal);
  return decide(db, { definition, params, organization: deciding, approvals: [approval], now });
}

/** Step "decide" for an activity waiting for consensus: every approval that still counts, this vote's included. */
export async function decideOnApprovals(
  db: Queryable,
  activity: { definition: ActivityDefinition; params: Record<string, unknown>; organization: OrganizationRow },
  approvals: Approval[],
  now: Date,
): Promise<Decision> {
  return decide(db, { ...activity, approvals, now });
}

/**
 * The decision inside the transaction allowed an activity whose preparation did not run (policies or votes
 * changed since the decision before preparing): the transaction is rolled back and the steps from "decide" run again.
 */
export class DecisionChanged extends Error {
  constructor() {
    super("the decision changed between preparation and execution");
  }
}
