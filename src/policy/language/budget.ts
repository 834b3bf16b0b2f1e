import { PolicyEvaluationError } from "./errors.js";

/**
 * The cost limits of the policy language. They are part of the language, not of a deployment: a policy that
 * one process accepts must not be refused or cut off by another, so they are constants (documented in
 * docs/guide.md "Policies and consensus" and SECURITY.md "Policy evaluation cost").
 */
export const POLICY_LIMITS = {
  /** Parentheses, '!', lists, method calls, indexes and field accesses nested in one another (a flat `&&`/`||` chain is one level). */
  maxNesting: 64,
  /** Steps of one evaluation of one expression: one per node evaluated, per item iterated and per value compared. */
  evaluationSteps: 100_000,
  /** Values one evaluation may allocate: list items, filtered items, sliced characters and items, scope copies. */
  evaluationAllocations: 1_000_000,
  /** Steps and allocations of one decision: every expression of every policy of the organization together. */
  decisionSteps: 1_000_000,
  decisionAllocations: 10_000_000,
  /** What create_policy assumes for the length of a list it cannot see (a keyword's): the static estimate must fit evaluationSteps. */
  assumedListLength: 16,
  /** The cost charged for one CronSpan() (it walks a week of the schedule). */
  cronSpanSteps: 1_000,
} as const;

/** An evaluation that ran out of its budget: that policy's outcome is OUTCOME_ERROR. */
export class PolicyBudgetExceededError extends PolicyEvaluationError {
  constructor(message: string) {
    super(message);
    this.name = "PolicyBudgetExceededError";
  }
}

/** A counter of steps and allocations with limits; charging a child also charges its parent (the decision). */
export class Budget {
  private stepsUsed = 0;
  private allocationsUsed = 0;

  constructor(
    readonly maxSteps: number,
    readonly maxAllocations: number,
    private readonly parent?: Budget,
    private readonly label = "policy evaluation",
  ) {}

  get steps(): number {
    return this.stepsUsed;
  }

  get allocations(): number {
    return this.allocationsUsed;
  }

  step(count = 1): void {
    this.stepsUsed += count;
    if (this.stepsUsed > this.maxSteps)
      throw new PolicyBudgetExceededError(`the ${this.label} exceeded its budget of ${this.maxSteps} steps`);
    this.parent?.step(count);
  }

  allocate(count: number): void {
    this.allocationsUsed += count;
    if (this.allocationsUsed > this.maxAllocations)
      throw new PolicyBudgetExceededError(`the ${this.label} exceeded its budget of ${this.maxAllocations} allocated values`);
    this.parent?.allocate(count);
  }

  /** A budget for one evaluation inside this one. */
  child(): Budget {
    return new Budget(POLICY_LIMITS.evaluationSteps, POLICY_LIMITS.evaluationAllocations, this);
  }

  static forDecision(): Budget {
    return new Budget(
      POLICY_LIMITS.decisionSteps,
      POLICY_LIMITS.decisionAllocations,
      undefined,
      "decision (all policies of the organization)",
    );
  }

  static forEvaluation(): Budget {
    return new Budget(POLICY_LIMITS.evaluationSteps, POLICY_LIMITS.evaluationAllocations);
  }
}
