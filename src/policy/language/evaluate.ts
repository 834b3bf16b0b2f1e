import { chainOperands, type Expr } from "./ast.js";
import { Budget, POLICY_LIMITS } from "./budget.js";
import { canonical, containsCanonically, sameUntypedString, type Canon } from "./canonical.js";
import { PolicyEvaluationError } from "./errors.js";
import { cronSpanActive, parseTimestamp, Timestamp } from "./time.js";

export type Value = boolean | bigint | string | Timestamp | Value[] | { [key: string]: Value };

/** What keywords stand for in one evaluation; an absent keyword errors when used (MissingField). */
export interface EvaluationEnvironment {
  keywords: Record<string, Value | undefined>;
  /** The trusted server time of the request (time.now), epoch ms. */
  now: number;
  /** Charged for every step and allocation; a fresh evaluation budget when absent. */
  budget?: Budget;
}

const isRecord = (v: Value): v is { [key: string]: Value } =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Timestamp);

function describe(value: Value): string {
  if (Array.isArray(value)) return "a list";
  if (value instanceof Timestamp) return "a timestamp";
  if (isRecord(value)) return "a struct";
  return `${typeof value === "bigint" ? "an int" : `a ${typeof value}`}`;
}

function order(a: Value, b: Value, operator: string, canon: Canon | undefined): number {
  const num = (v: Value) =>
    typeof v === "string" && /^-?\d+$/.test(v) ? BigInt(v) : typeof v === "string" && canon ? canonical(v, canon) : v;
  const x = num(a);
  const y = num(b);
  if (typeof x === "bigint" && typeof y === "bigint") return x < y ? -1 : x > y ? 1 : 0;
  if (typeof x === "string" && typeof y === "string") return x < y ? -1 : x > y ? 1 : 0;
  if (x instanceof Timestamp && y instanceof Timestamp) return x.ms - y.ms;
  throw new PolicyEvaluationError(`'${operator}' cannot order ${describe(a)} and ${describe(b)}`);
}

function asBool(value: Value, what: string): boolean {
  if (typeof value !== "boolean") throw new PolicyEvaluationError(`${what} is ${describe(value)}, not a bool`);
  return value;
}

function asList(value: Value, what: string): Value[] {
  if (!Array.isArray(value)) throw new PolicyEvaluationError(`${what} is ${describe(value)}, not a list`);
  return value;
}

function asIndex(value: Value, length: number, what: string): number {
  const index = typeof value === "string" && /^\d+$/.test(value) ? BigInt(value) : value;
  if (typeof index !== "bigint") throw new PolicyEvaluationError(`${what} must be an int`);
  if (index < 0n || index >= BigInt(length)) throw new PolicyEvaluationError(`index ${index} is out of range (length ${length})`);
  return Number(index);
}

class Evaluator {
  constructor(
    private readonly env: EvaluationEnvironment,
    private readonly budget: Budget,
  ) {}

  /** Integers compare with quoted integers; strings of a kind with several spellings compare canonically (canonical.ts). */
  private equal(a: Value, b: Value, canon: Canon | undefined): boolean {
    this.budget.step();
    if (typeof a === "bigint" && typeof b === "string") return /^-?\d+$/.test(b) && a === BigInt(b);
    if (typeof a === "string" && typeof b === "bigint") return this.equal(b, a, canon);
    if (typeof a === "string" && typeof b === "string")
      return canon ? canonical(a, canon) === canonical(b, canon) : sameUntypedString(a, b);
    if (a instanceof Timestamp && b instanceof Timestamp) return a.ms === b.ms;
    if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => this.equal(item, b[i]!, canon));
    if (isRecord(a) && isRecord(b)) {
      const keys = Object.keys(a);
      return keys.length === Object.keys(b).length && keys.every((k) => k in b && this.equal(a[k]!, b[k]!, undefined));
    }
    return a === b;
  }

  evaluate(node: Expr, scope: Map<string, Value>): Value {
    this.budget.step();
    switch (node.kind) {
      case "bool":
      case "int":
      case "string":
        return node.value;
      case "list":
        this.budget.allocate(node.items.length);
        return node.items.map((item) => this.evaluate(item, scope));
      case "identifier": {
        const value = scope.get(node.name) ?? this.env.keywords[node.name];
        if (value === undefined) throw new PolicyEvaluationError(`MissingField: '${node.name}' is not available for this activity`);
        return value;
      }
      case "not":
        return !asBool(this.evaluate(node.operand, scope), "the operand of '!'");
      case "binary": {
        if (node.operator === "&&" || node.operator === "||") {
          // No short-circuit: every operand is always evaluated, so an error in any of them is the outcome.
          const side = (i: number) => `the ${i === 0 ? "left" : "right"} side of '${node.operator}'`;
          const values = chainOperands(node).map((operand, i) => asBool(this.evaluate(operand, scope), side(i)));
          return node.operator === "&&" ? values.every(Boolean) : values.some(Boolean);
        }
        const left = this.evaluate(node.left, scope);
        const right = this.evaluate(node.right, scope);
        switch (node.operator) {
          case "==":
            return this.equal(left, right, node.canon);
          case "!=":
            return !this.equal(left, right, node.canon);
          case "in":
            return asList(right, "the right side of 'in'").some((item) => this.equal(left, item, node.canon));
          case "<":
            return order(left, right, "<", node.canon) < 0;
          case ">":
            return order(left, right, ">", node.canon) > 0;
          case "<=":
            return order(left, right, "<=", node.canon) <= 0;
          case ">=":
            return order(left, right, ">=", node.canon) >= 0;
        }
        break;
      }
      case "field": {
        const target = this.evaluate(node.target, scope);
        if (Array.isArray(target) && node.name === "count") return BigInt(target.length);
        if (!isRecord(target)) throw new PolicyEvaluationError(`cannot read '.${node.name}' of ${describe(target)}`);
        const value = target[node.name];
        if (value === undefined) throw new PolicyEvaluationError(`MissingField: '${node.name}' is not available`);
        return value;
      }
      case "index": {
        const target = this.evaluate(node.target, scope);
        const index = this.evaluate(node.index, scope);
        if (Array.isArray(target)) return target[asIndex(index, target.length, "a list index")]!;
        if (typeof target === "string") {
          const i = asIndex(index, target.length, "a string index");
          return target.slice(i, i + 1);
        }
        if (isRecord(target)) {
          const key = typeof index === "bigint" ? String(index) : index;
          if (typeof key !== "string") throw new PolicyEvaluationError("a key must be a string");
          const value = target[key];
          if (value === undefined) throw new PolicyEvaluationError(`MissingField: '${key}' is not available`);
          return value;
        }
        throw new PolicyEvaluationError(`cannot index ${describe(target)}`);
      }
      case "slice": {
        const target = this.evaluate(node.target, scope);
        if (!Array.isArray(target) && typeof target !== "string") throw new PolicyEvaluationError(`cannot slice ${describe(target)}`);
        const bound = (expr: Expr | undefined, fallback: number) => {
          if (!expr) return fallback;
          const value = this.evaluate(expr, scope);
          if (typeof value !== "bigint") throw new PolicyEvaluationError("slice bounds must be ints");
          if (value < 0n || value > BigInt(target.length))
            throw new PolicyEvaluationError(`slice bound ${value} is out of range (length ${target.length})`);
          return Number(value);
        };
        const start = bound(node.start, 0);
        const end = bound(node.end, target.length);
        if (start > end) throw new PolicyEvaluationError(`slice [${start}..${end}] ends before it starts`);
        // Characters are cheap next to list items: one allocation per 16.
        this.budget.allocate(typeof target === "string" ? Math.ceil((end - start) / 16) : end - start);
        return target.slice(start, end);
      }
      case "method":
        return this.evaluateMethod(node, scope);
      case "call": {
        const args = node.args.map((arg) => this.evaluate(arg, scope));
        if (!args.every((a) => typeof a === "string")) throw new PolicyEvaluationError(`${node.name}() takes strings`);
        const [a, b, c] = args as string[];
        if (node.name === "Timestamp") return parseTimestamp(a!);
        this.budget.step(POLICY_LIMITS.cronSpanSteps);
        return cronSpanActive(a!, b!, c!, this.env.now);
      }
    }
    throw new PolicyEvaluationError("unsupported expression");
  }

  private evaluateMethod(node: Extract<Expr, { kind: "method" }>, scope: Map<string, Value>): Value {
    const target = this.evaluate(node.target, scope);
    if (node.name === "contains") {
      const needle = this.evaluate(node.args[0]!, scope);
      if (typeof target === "string" && typeof needle === "string") {
        this.budget.step(Math.ceil(target.length / 64));
        return node.canon ? containsCanonically(target, needle, node.canon) : target.includes(needle);
      }
      return asList(target, `the target of .contains()`).some((item) => this.equal(item, needle, node.canon));
    }
    const items = asList(target, `the target of .${node.name}()`);
    if (node.name === "count") return BigInt(items.length);
    // One scope for the whole iteration: the item's name is rebound for each item.
    this.budget.allocate(scope.size + 1 + items.length);
    const inner = new Map(scope);
    const results = items.map((item) => {
      this.budget.step();
      inner.set(node.variable!, item);
      return asBool(this.evaluate(node.args[0]!, inner), `the predicate of .${node.name}()`);
    });
    if (node.name === "all") return results.every(Boolean);
    if (node.name === "any") return results.some(Boolean);
    return items.filter((_, i) => results[i]);
  }
}

/** Evaluates a checked expression within env.budget (a fresh evaluation budget by default); throws PolicyEvaluationError. */
export function evaluateExpression(expr: Expr, env: EvaluationEnvironment): boolean {
  const withTime = { ...env, keywords: { ...env.keywords, time: { now: new Timestamp(env.now) } } };
  const value = new Evaluator(withTime, env.budget ?? Budget.forEvaluation()).evaluate(expr, new Map());
  if (typeof value !== "boolean") throw new PolicyEvaluationError(`the expression gave ${describe(value)}, not a bool`);
  return value;
}
