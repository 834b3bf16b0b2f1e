import type { Expr } from "./ast.js";
import { PolicyEvaluationError } from "./errors.js";
import { cronSpanActive, parseTimestamp, Timestamp } from "./time.js";

export type Value = boolean | bigint | string | Timestamp | Value[] | { [key: string]: Value };

/** What keywords stand for in one evaluation; an absent keyword errors when used (MissingField). */
export interface EvaluationEnvironment {
  keywords: Record<string, Value | undefined>;
  /** The trusted server time of the request (time.now), epoch ms. */
  now: number;
}

const isRecord = (v: Value): v is { [key: string]: Value } => typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Timestamp);
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

function describe(value: Value): string {
  if (Array.isArray(value)) return "a list";
  if (value instanceof Timestamp) return "a timestamp";
  if (isRecord(value)) return "a struct";
  return `${typeof value === "bigint" ? "an int" : `a ${typeof value}`}`;
}

/** Integers compare with quoted integers; Ethereum addresses compare without regard to checksum case. */
function equal(a: Value, b: Value): boolean {
  if (typeof a === "bigint" && typeof b === "string") return /^-?\d+$/.test(b) && a === BigInt(b);
  if (typeof a === "string" && typeof b === "bigint") return equal(b, a);
  if (typeof a === "string" && typeof b === "string") return a === b || (ADDRESS.test(a) && ADDRESS.test(b) && a.toLowerCase() === b.toLowerCase());
  if (a instanceof Timestamp && b instanceof Timestamp) return a.ms === b.ms;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => equal(item, b[i]!));
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && equal(a[k]!, b[k]!));
  }
  return a === b;
}

function order(a: Value, b: Value, operator: string): number {
  const num = (v: Value) => (typeof v === "string" && /^-?\d+$/.test(v) ? BigInt(v) : v);
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
  constructor(private readonly env: EvaluationEnvironment) {}

  evaluate(node: Expr, scope: Map<string, Value>): Value {
    switch (node.kind) {
      case "bool":
      case "int":
      case "string":
        return node.value;
      case "list":
        return node.items.map((item) => this.evaluate(item, scope));
      case "identifier": {
        const value = scope.get(node.name) ?? this.env.keywords[node.name];
        if (value === undefined) throw new PolicyEvaluationError(`MissingField: '${node.name}' is not available for this activity`);
        return value;
      }
      case "not":
        return !asBool(this.evaluate(node.operand, scope), "the operand of '!'");
      case "binary": {
        // No short-circuit: both sides are always evaluated, so an error on either side is the outcome.
        const left = this.evaluate(node.left, scope);
        const right = this.evaluate(node.right, scope);
        switch (node.operator) {
          case "&&":
            return asBool(left, "the left side of '&&'") && asBool(right, "the right side of '&&'");
          case "||":
            return asBool(left, "the left side of '||'") || asBool(right, "the right side of '||'");
          case "==":
            return equal(left, right);
          case "!=":
            return !equal(left, right);
          case "in":
            return asList(right, "the right side of 'in'").some((item) => equal(left, item));
          case "<":
            return order(left, right, "<") < 0;
          case ">":
            return order(left, right, ">") > 0;
          case "<=":
            return order(left, right, "<=") <= 0;
          case ">=":
            return order(left, right, ">=") >= 0;
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
          if (value < 0n || value > BigInt(target.length)) throw new PolicyEvaluationError(`slice bound ${value} is out of range (length ${target.length})`);
          return Number(value);
        };
        const start = bound(node.start, 0);
        const end = bound(node.end, target.length);
        if (start > end) throw new PolicyEvaluationError(`slice [${start}..${end}] ends before it starts`);
        return target.slice(start, end);
      }
      case "method":
        return this.evaluateMethod(node, scope);
      case "call": {
        const args = node.args.map((arg) => this.evaluate(arg, scope));
        if (!args.every((a) => typeof a === "string")) throw new PolicyEvaluationError(`${node.name}() takes strings`);
        const [a, b, c] = args as string[];
        return node.name === "Timestamp" ? parseTimestamp(a!) : cronSpanActive(a!, b!, c!, this.env.now);
      }
    }
    throw new PolicyEvaluationError("unsupported expression");
  }

  private evaluateMethod(node: Extract<Expr, { kind: "method" }>, scope: Map<string, Value>): Value {
    const target = this.evaluate(node.target, scope);
    if (node.name === "contains") {
      const needle = this.evaluate(node.args[0]!, scope);
      if (typeof target === "string" && typeof needle === "string") return target.includes(needle);
      return asList(target, `the target of .contains()`).some((item) => equal(item, needle));
    }
    const items = asList(target, `the target of .${node.name}()`);
    if (node.name === "count") return BigInt(items.length);
    const results = items.map((item) => asBool(this.evaluate(node.args[0]!, new Map(scope).set(node.variable!, item)), `the predicate of .${node.name}()`));
    if (node.name === "all") return results.every(Boolean);
    if (node.name === "any") return results.some(Boolean);
    return items.filter((_, i) => results[i]);
  }
}

export function evaluateExpression(expr: Expr, env: EvaluationEnvironment): boolean {
  const withTime = { ...env, keywords: { ...env.keywords, time: { now: new Timestamp(env.now) } } };
  const value = new Evaluator(withTime).evaluate(expr, new Map());
  if (typeof value !== "boolean") throw new PolicyEvaluationError(`the expression gave ${describe(value)}, not a bool`);
  return value;
}
