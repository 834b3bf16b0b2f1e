import { compilePolicyExpression, costRefusal, isPolicySyntaxError, type PolicyField } from "../../../src/policy/language/index.js";
import { messageOf, type ApiTimestamp } from "../api/requests.js";

/** A policy as list_policies returns it. */
export interface Policy {
  policyId: string;
  policyName: string;
  effect: string;
  condition: string | null;
  consensus: string | null;
  time: string | null;
  notes: string;
  createdAt: ApiTimestamp;
  updatedAt: ApiTimestamp;
}

/** The policy being written in the editor: a new one, or a change to `policyId`. */
export interface PolicyDraft {
  policyId?: string;
  policyName: string;
  effect: string;
  condition: string;
  consensus: string;
  notes: string;
  /** The changed policy's time window, kept as it is (the editor does not change it). */
  time?: string;
}

export const describeEffect = (effect: string) => (effect === "EFFECT_DENY" ? "Deny" : "Allow");

/** What is wrong with an expression, and where (the server's compiler gives an offset; people read lines). */
export interface ExpressionProblem {
  message: string;
  position?: { offset: number; line: number; column: number };
}

export function lineAndColumn(source: string, offset: number): { line: number; column: number } {
  const before = source.slice(0, offset);
  const lineStart = before.lastIndexOf("\n") + 1;
  return { line: before.split("\n").length, column: offset - lineStart + 1 };
}

/**
 * The server's own check of one policy field (src/domains/policies/policies.ts checkPolicyExpression): parse,
 * type-check against the field's keywords, then the cost estimate. A blank field is no expression, which is valid.
 */
export function checkPolicyField(source: string, field: PolicyField): ExpressionProblem | undefined {
  if (source.trim() === "") return undefined;
  try {
    const refusal = costRefusal(compilePolicyExpression(source, field));
    return refusal ? { message: refusal } : undefined;
  } catch (error) {
    if (!isPolicySyntaxError(error)) return { message: messageOf(error) };
    return { message: error.detail, position: { offset: error.position, ...lineAndColumn(source, error.position) } };
  }
}
