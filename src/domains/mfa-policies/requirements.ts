import { conditionKeywords } from "../../policy/keywords/index.js";
import type { ParsedTransactions } from "../../crypto/signing/parsed-transactions.js";
import { Budget, compilePolicyExpression, evaluateExpression, PolicyEvaluationError, type Value } from "../../policy/language/index.js";
import type { Queryable } from "../../store/database.js";
import type { ActivityDefinition } from "../../operations/activity-definition.js";
import { mfaPoliciesOf, type MfaPolicyRow } from "./mfa-policies.js";
import {
  authenticationMethodOf,
  describeStep,
  existedAtSubmission,
  matchSteps,
  type ProvenMethod,
  type ProvingCredential,
} from "./methods.js";
import type { RequiredStep } from "../../records/mfa-policy.js";
import type { UserRecord } from "../../records/user.js";

/** What requirementsFor reads of an MFA policy, in evaluation order (a stored row, or the user's snapshot). */
export type KnownMfaPolicy = Pick<MfaPolicyRow, "id" | "condition" | "required_methods">;

/** A user's MFA policies as their record (the snapshot authentication read with the user) lists them, in order. */
export function knownMfaPolicies(record: Pick<UserRecord, "mfaPolicies">): KnownMfaPolicy[] {
  // The record's steps are the row's required_methods as stored (mfaPolicyRecord), typed by the API schema.
  return record.mfaPolicies.map((p) => ({
    id: p.mfaPolicyId,
    condition: p.condition,
    required_methods: p.requiredAuthenticationMethods as RequiredStep[],
  }));
}

/** What one user must prove for one activity: a policy's steps as they were when the user first voted on it. */
export interface MfaRequirement {
  userId: string;
  mfaPolicyId: string;
  steps: RequiredStep[];
}

/** How far a user has got with one requirement. */
export interface MfaProgress extends MfaRequirement {
  /** Per step, the proof assigned to it (none while unsatisfied). */
  matched: Array<ProvenMethod | undefined>;
  satisfied: boolean;
}

/** The activity as its MFA conditions see it (the same keywords as policy conditions). */
export interface MfaSubject {
  organizationId: string;
  definition: ActivityDefinition;
  params: Record<string, unknown>;
  /** The request's parse of the transaction it signs (see ParsedTransactions). */
  parsedTransactions?: ParsedTransactions;
}

/**
 * Whether an MFA condition holds. An evaluation error — a keyword this activity does not have, such as `eth.tx`
 * in `activity.action == 'SIGN' && eth.tx.value > …` for an activity that signs nothing (evaluation never
 * short-circuits) — means the condition is about other activities: it does not apply, as an erroring policy
 * neither allows nor denies. Not failing closed is deliberate (SECURITY.md): with no short-circuit, the
 * documented `… && eth.tx.value > …` would otherwise apply to every activity without a transaction, logins
 * included. A condition that could not be evaluated at all (out of budget, beyond the language's limits)
 * applies: that fails closed, requiring its steps.
 */
function applies(policy: KnownMfaPolicy, keywords: Record<string, Value>, now: Date, budget: Budget): boolean {
  try {
    return evaluateExpression(compilePolicyExpression(policy.condition, "condition"), {
      keywords,
      now: now.getTime(),
      budget: budget.child(),
    });
  } catch (error) {
    if (error instanceof PolicyEvaluationError) return false;
    return true;
  }
}

/**
 * Whether the activity changes how `userId` authenticates beyond a session: their own MFA policies, or a
 * factor enrolled on themselves — an API key, a passkey, an OAuth provider, an email or phone number. A login
 * (a session) is not: it proves only SESSION, and every login needs some factor the user already has.
 */
function changesOwnFactors(subject: MfaSubject, userId: string): boolean {
  if (subject.definition.resource === "MFA_POLICY") return subject.params.userId === userId;
  const enrollment = subject.definition.enrolls?.(subject.params as never, userId);
  return enrollment?.userId === userId && enrollment.factors.some((factor) => factor !== "session");
}

/**
 * The MFA a user's vote on an activity calls for. Normally the first of the user's policies, by `order`, whose
 * condition holds ("only one MFA policy is ever enforced per request"). But a user changing their own factors
 * must satisfy every MFA policy they have, whatever the conditions say: creating, changing or deleting their
 * own MFA policies (otherwise adding a weaker policy ahead of a stronger one, or deleting the stronger one,
 * would let whoever holds one credential of theirs remove the requirement the others protect), and enrolling
 * a factor on themselves (otherwise a stolen session would add an API key or passkey of the thief's and prove
 * with it the step it lacks). An MFA policy only ever adds requirements for its user.
 */
export async function requirementsFor(
  db: Queryable,
  subject: MfaSubject,
  userId: string,
  now: Date,
  known?: readonly KnownMfaPolicy[],
): Promise<MfaRequirement[]> {
  const policies: readonly KnownMfaPolicy[] = known ?? (await mfaPoliciesOf(db, subject.organizationId, userId));
  if (policies.length === 0) return [];
  const requirement = (p: KnownMfaPolicy): MfaRequirement => ({ userId, mfaPolicyId: p.id, steps: p.required_methods });
  if (changesOwnFactors(subject, userId)) return policies.map(requirement);
  const keywords = await conditionKeywords(db, subject.organizationId, subject.definition, subject.params, subject.parsedTransactions);
  const budget = Budget.forDecision();
  const first = policies.find((policy) => applies(policy, keywords, now, budget));
  return first ? [requirement(first)] : [];
}

/** Fixes what a user's first vote on an activity calls for (ignored when already fixed). */
export async function recordRequirements(tx: Queryable, activityId: string, requirements: MfaRequirement[]): Promise<void> {
  for (const [position, r] of requirements.entries()) {
    await tx.query(
      `INSERT INTO activity_mfa_requirements (activity_id, user_id, mfa_policy_id, required_methods, position)
       VALUES ($1, $2, $3, $4::jsonb, $5) ON CONFLICT DO NOTHING`,
      [activityId, r.userId, r.mfaPolicyId, JSON.stringify(r.steps), position],
    );
  }
}

/** What the activity's voters were asked for, by user, in the order fixed. */
export async function recordedRequirements(db: Queryable, activityId: string, userId?: string): Promise<MfaRequirement[]> {
  const rows = await db.query<{ user_id: string; mfa_policy_id: string; required_methods: RequiredStep[] }>(
    `SELECT user_id, mfa_policy_id, required_methods FROM activity_mfa_requirements
      WHERE activity_id = $1${userId ? " AND user_id = $2" : ""} ORDER BY user_id, position`,
    userId ? [activityId, userId] : [activityId],
  );
  return rows.map((r) => ({ userId: r.user_id, mfaPolicyId: r.mfa_policy_id, steps: r.required_methods }));
}

/** A vote as MFA reads it: who approved with which credential. */
export interface MfaVote {
  user_id: string;
  selection: string;
  credential: ProvingCredential | null;
}

/**
 * Each requirement with the steps the users' approvals (those that still count) prove: only with credentials
 * that existed when the activity was submitted (`submittedAt`, see existedAtSubmission).
 */
export function progressOf(requirements: MfaRequirement[], votes: MfaVote[], submittedAt: Date): MfaProgress[] {
  return requirements.map((requirement) => {
    const proofs = votes
      .filter((v) => v.user_id === requirement.userId && v.selection === "VOTE_SELECTION_APPROVED" && v.credential)
      .filter((v) => existedAtSubmission(v.credential!, submittedAt))
      .flatMap((v) => authenticationMethodOf(v.credential!) ?? []);
    const matched = matchSteps(requirement.steps, proofs);
    return { ...requirement, matched, satisfied: matched.every((m) => m !== undefined) };
  });
}

/** The users some of whose MFA is still unmet. */
export const unsatisfiedUsers = (progress: MfaProgress[]) => new Set(progress.filter((p) => !p.satisfied).map((p) => p.userId));

/**
 * Whether one more approval, stamped with `credential`, proves a step the user still lacks; when not, the
 * sentence saying what would (for the refusal).
 */
export function advances(
  progress: MfaProgress[],
  votes: MfaVote[],
  userId: string,
  credential: ProvingCredential,
  submittedAt: Date,
): true | string {
  const mine = progress.filter((p) => p.userId === userId && !p.satisfied);
  const extra: MfaVote = { user_id: userId, selection: "VOTE_SELECTION_APPROVED", credential };
  const after = progressOf(mine, [...votes, extra], submittedAt);
  const count = (p: MfaProgress[]) => p.reduce((n, r) => n + r.matched.filter(Boolean).length, 0);
  if (count(after) > count(mine)) return true;
  const method = authenticationMethodOf(credential);
  const proves = !existedAtSubmission(credential, submittedAt)
    ? `was created after the activity was submitted (at ${credential.createdAt}, the activity at ${submittedAt.toISOString()}), so it proves no step of it`
    : method
      ? `proves ${method.type}`
      : "proves no authentication method";
  const missing = mine.flatMap((p) =>
    p.steps.filter((_, i) => !p.matched[i]).map((s) => `${describeStep(s)} (MFA policy ${p.mfaPolicyId})`),
  );
  const already =
    method && mine.some((p) => p.matched.some((m) => m?.credentialId === credential.id)) ? ", and it already proved a step" : "";
  return `the credential ${credential.id} (${credential.type}) ${proves}${already}; still needed: ${missing.join("; ")}`;
}
