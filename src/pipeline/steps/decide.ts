import type { Principal } from "../../auth/principal.js";
import { requireOrganization, type OrganizationRow } from "../../records/organization.js";
import { approvalOf, submissionVoteOf, votedCredential, type StoredVote } from "../../domains/activities/votes.js";
import type { ActivityRow } from "../../records/activity.js";
import {
  progressOf,
  recordedRequirements,
  requirementsFor,
  knownMfaPolicies,
  unsatisfiedUsers,
  type MfaRequirement,
} from "../../domains/mfa-policies/requirements.js";
import { decide, type Approval, type Decision, type DecisionPolicy } from "../../policy/decision.js";
import type { Queryable } from "../../store/database.js";
import type { ActivityDefinition } from "../../operations/activity-definition.js";
import { ParsedTransactions } from "../../crypto/signing/parsed-transactions.js";
import type { VelocityLedger } from "../../policy/velocity/ledger.js";
import { openVelocityLedger } from "../../policy/velocity/subject.js";

/** The approval a request's own stamp carries: its user and credential. */
export function approvalOfPrincipal(principal: Principal): Approval {
  return {
    userId: principal.user.id,
    isRoot: principal.user.isRoot,
    credential: votedCredential(principal),
  };
}

/**
 * A decision, the MFA the voter's first vote calls for (to be fixed on the activity with it), and the activity's
 * velocity ledger, which records it once it executes (src/policy/velocity/ledger.ts).
 */
export interface GatedDecision {
  decision: Decision;
  requirements: MfaRequirement[];
  velocity: VelocityLedger;
}

/** Policies and MFA both hold: an activity the policies would run or keep waiting waits first for its requester's MFA. */
function gate(decision: Decision, requesterPending: boolean): Decision {
  return requesterPending && decision.outcome !== "deny"
    ? { outcome: "authenticators-needed", evaluations: decision.evaluations }
    : decision;
}

/**
 * Step "decide" for a new activity: its submitter's approval against the policies and root quorum, then the
 * submitter's MFA (their MFA policy whose condition holds, met or not by the credential that stamped the
 * submission). A parent-initiated authentication activity is the parent's decision: its policies, its root
 * quorum. It reads only; `db` is the store (the decision before preparing) or the activity's transaction (the
 * one that counts).
 */
export async function decideSubmission(
  db: Queryable,
  submission: {
    definition: ActivityDefinition;
    params: Record<string, unknown>;
    principal: Principal;
    organization: OrganizationRow;
    now: Date;
    /** A dry run's drafted policy set, in place of the deciding organization's (see decide). */
    policies?: readonly DecisionPolicy[];
    /** The request's parse of the transaction it signs, shared by its steps (see ParsedTransactions). */
    parsedTransactions?: ParsedTransactions;
  },
  first?: StoredVote,
): Promise<GatedDecision> {
  const { definition, params, principal, organization, now, policies } = submission;
  const parsedTransactions = submission.parsedTransactions ?? new ParsedTransactions();
  const deciding = principal.viaParent ? await requireOrganization(db, principal.user.organizationId) : organization;
  const approval = first ? { ...approvalOf(first), isRoot: principal.user.isRoot } : approvalOfPrincipal(principal);
  const activity = { organizationId: deciding.id, userId: principal.user.id, definition, params, parsedTransactions };
  // Authentication read whether the user's organization, the deciding one, has velocity controls.
  const hasControls = deciding.id === principal.user.organizationId ? principal.organizationHasVelocityControls : undefined;
  const velocity = await openVelocityLedger(db, activity, now, hasControls);
  const decision = await decide(db, {
    definition,
    params,
    organization: deciding,
    approvals: [approval],
    now,
    policies,
    parsedTransactions,
    // The decision that counts is taken with the first vote, in the activity's transaction: it locks the buckets.
    velocity: { ledger: velocity, lock: first !== undefined },
  });
  if (decision.outcome === "deny") return { decision, requirements: [], velocity };
  const subject = { organizationId: organization.id, definition, params, parsedTransactions };
  // The user's MFA policies came with the credential in authentication's statement (a snapshot of the user as the
  // vote records them): read again only without one, or for a parent's user, whose policies are the parent's.
  const known = principal.snapshot?.userId === principal.user.id && !principal.viaParent ? knownMfaPolicies(principal.snapshot) : undefined;
  const requirements = await requirementsFor(db, subject, principal.user.id, now, known);
  const vote = { user_id: principal.user.id, selection: "VOTE_SELECTION_APPROVED", credential: approval.credential };
  return { decision: gate(decision, unsatisfiedUsers(progressOf(requirements, [vote], now)).size > 0), requirements, velocity };
}

/**
 * Step "decide" for an activity waiting for consensus or authenticators, at a vote: every vote that still counts,
 * this one included (`votes`). Each voter's MFA is what their first vote fixed (the voter's now, if this is
 * their first); an approval counts toward consensus only once its user's MFA is met (the requester's always
 * counts, their MFA gating the whole activity instead), and once per user — the extra approvals that prove MFA
 * steps are not extra approvers.
 */
export async function decideOnVotes(
  db: Queryable,
  activity: {
    row: ActivityRow;
    definition: ActivityDefinition;
    params: Record<string, unknown>;
    organization: OrganizationRow;
    /** A dry run's drafted policy set, in place of the organization's (see decide). */
    policies?: readonly DecisionPolicy[];
    /** The vote's parse of the transaction the activity signs, shared by its steps (see ParsedTransactions). */
    parsedTransactions?: ParsedTransactions;
  },
  votes: StoredVote[],
  voter: { userId: string; firstVote: boolean },
  now: Date,
  /** In the vote's transaction (the decision that counts): lock the velocity buckets the decision reads. */
  lockVelocity = false,
): Promise<GatedDecision & { submission: Pick<StoredVote, "user_id" | "credential"> }> {
  const { row, definition, params, organization, policies } = activity;
  const parsedTransactions = activity.parsedTransactions ?? new ParsedTransactions();
  const submission = await submissionVoteOf(db, row.id);
  const requester = submission.user_id;
  const recorded = await recordedRequirements(db, row.id);
  const requirements =
    voter.firstVote && !recorded.some((r) => r.userId === voter.userId)
      ? await requirementsFor(db, { organizationId: organization.id, definition, params, parsedTransactions }, voter.userId, now)
      : [];
  const pending = unsatisfiedUsers(progressOf([...recorded, ...requirements], votes, row.created_at));
  const seen = new Set<string>();
  const approvals = votes.filter((v) => {
    if (v.selection !== "VOTE_SELECTION_APPROVED" || seen.has(v.user_id)) return false;
    seen.add(v.user_id);
    return v.user_id === requester || !pending.has(v.user_id);
  });
  const approving = approvals.map(approvalOf);
  const subject = { organizationId: organization.id, userId: requester, definition, params, parsedTransactions };
  const velocity = await openVelocityLedger(db, subject, now);
  const decision = await decide(db, {
    definition,
    params,
    organization,
    approvals: approving,
    now,
    policies,
    parsedTransactions,
    velocity: { ledger: velocity, lock: lockVelocity },
  });
  return { decision: gate(decision, pending.has(requester)), requirements, velocity, submission };
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
