import type { Expr } from "./ast.js";
import { checkExpression } from "./check.js";
import { PolicySyntaxError } from "./lexer.js";
import { parseExpression } from "./parser.js";
import type { PolicyField } from "./types.js";

export { PolicyEvaluationError } from "./errors.js";
export { Budget, PolicyBudgetExceededError, POLICY_LIMITS } from "./budget.js";
export { canonical, type Canon } from "./canonical.js";
export { costRefusal, estimateCost, type CostEstimate } from "./cost.js";
export { evaluateExpression, type EvaluationEnvironment, type Value } from "./evaluate.js";
export { PolicySyntaxError } from "./lexer.js";
export { Timestamp } from "./time.js";
export type { Expr } from "./ast.js";
export type { PolicyField } from "./types.js";

/** Parses and type-checks one policy field; throws PolicySyntaxError with the position and what was expected. */
export function compilePolicyExpression(source: string, field: PolicyField): Expr {
  const expr = parseExpression(source);
  checkExpression(expr, field);
  return expr;
}

export function isPolicySyntaxError(error: unknown): error is PolicySyntaxError {
  return error instanceof PolicySyntaxError;
}
