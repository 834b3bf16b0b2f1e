import { chainOperands, type Expr } from "./ast.js";
import { POLICY_LIMITS } from "./budget.js";

/** What one evaluation of an expression is estimated to cost, in the evaluator's units (budget.ts). */
export interface CostEstimate {
  steps: number;
  allocations: number;
}

interface Estimate extends CostEstimate {
  /** How many items the value has, when it is a list: exact for a literal, assumed for a keyword's. */
  length: number;
}

const leaf = (length = POLICY_LIMITS.assumedListLength): Estimate => ({ steps: 1, allocations: 0, length });
const sum = (parts: Estimate[], extra: Partial<Estimate> = {}): Estimate => ({
  steps: 1 + parts.reduce((n, p) => n + p.steps, 0) + (extra.steps ?? 0),
  allocations: parts.reduce((n, p) => n + p.allocations, 0) + (extra.allocations ?? 0),
  length: extra.length ?? POLICY_LIMITS.assumedListLength,
});

/**
 * An upper estimate of the steps and allocations one evaluation takes, mirroring what the evaluator charges:
 * a predicate of .all/.any/.filter costs once per item, so nesting them multiplies (N^depth). Lists whose
 * length only the activity knows are assumed to hold POLICY_LIMITS.assumedListLength items; the evaluation
 * budget still cuts off a longer one at run time. Recursion is bounded by the parser's nesting limit.
 */
function estimate(node: Expr, scopeSize = 0): Estimate {
  const inner = (child: Expr) => estimate(child, scopeSize);
  switch (node.kind) {
    case "bool":
    case "int":
    case "string":
    case "identifier":
      return leaf();
    case "list": {
      const items = node.items.map(inner);
      return sum(items, { allocations: items.length, length: items.length });
    }
    case "not":
      return sum([inner(node.operand)]);
    case "binary": {
      if (node.operator === "&&" || node.operator === "||") return sum(chainOperands(node).map(inner));
      const left = inner(node.left);
      const right = inner(node.right);
      const compared =
        node.operator === "in"
          ? right.length
          : node.operator === "==" || node.operator === "!="
            ? Math.max(1, Math.min(left.length, right.length))
            : 0;
      return sum([left, right], { steps: compared });
    }
    case "field":
      return sum([inner(node.target)]);
    case "index":
      return sum([inner(node.target), inner(node.index)]);
    case "slice": {
      const target = inner(node.target);
      const bounds = [node.start, node.end].filter((b): b is Expr => b !== undefined).map(inner);
      return sum([target, ...bounds], { allocations: target.length, length: target.length });
    }
    case "call":
      return sum(node.args.map(inner), { steps: node.name === "CronSpan" ? POLICY_LIMITS.cronSpanSteps : 0 });
    case "method": {
      const target = inner(node.target);
      if (node.name === "contains") return sum([target, ...node.args.map(inner)], { steps: target.length });
      if (node.name === "count") return sum([target]);
      const predicate = node.args[0] ? estimate(node.args[0], scopeSize + 1) : leaf();
      const n = target.length;
      return {
        steps: 1 + target.steps + n * (1 + predicate.steps),
        allocations: target.allocations + scopeSize + 1 + n + n * predicate.allocations,
        length: n,
      };
    }
  }
}

export function estimateCost(expr: Expr): CostEstimate {
  const { steps, allocations } = estimate(expr);
  return { steps, allocations };
}

/** Why an expression is refused at creation for its cost, or undefined when it fits one evaluation's budget. */
export function costRefusal(expr: Expr): string | undefined {
  const { steps, allocations } = estimateCost(expr);
  const over = (n: number) => (n > 1e15 ? "astronomically many" : String(Math.ceil(n)));
  if (steps > POLICY_LIMITS.evaluationSteps) {
    return `its estimated cost is ${over(steps)} steps, more than the ${POLICY_LIMITS.evaluationSteps} one evaluation may take (each .all/.any/.filter multiplies the cost of its predicate by the length of its list; lists a keyword holds count as ${POLICY_LIMITS.assumedListLength})`;
  }
  if (allocations > POLICY_LIMITS.evaluationAllocations) {
    return `its estimated cost is ${over(allocations)} allocated values, more than the ${POLICY_LIMITS.evaluationAllocations} one evaluation may allocate`;
  }
  return undefined;
}
