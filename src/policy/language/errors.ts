/** A failure while evaluating a policy (a missing field, an index out of range…): the policy's outcome is an error. */
export class PolicyEvaluationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PolicyEvaluationError";
  }
}
