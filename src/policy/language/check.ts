import { chainOperands, type Expr } from "./ast.js";
import type { Canon } from "./canonical.js";
import { PolicySyntaxError } from "./lexer.js";
import { cronSpanActive, parseTimestamp } from "./time.js";
import { PolicyEvaluationError } from "./errors.js";
import { BOOL, DYNAMIC, INT, KEYWORDS, STRING, TIMESTAMP, list, typeName, type PolicyField, type Type } from "./types.js";

const isDynamic = (t: Type) => t.kind === "dynamic";
/** The spelling kind of a string, or of the strings of a list. */
const canonOf = (t: Type): Canon | undefined => (t.kind === "string" ? t.canon : t.kind === "list" ? canonOf(t.item) : undefined);
const isIntLike = (t: Type) => t.kind === "int" || isDynamic(t);

/**
 * Equality is between values of one type; the documentation's own examples also compare integers with
 * quoted numbers (`eth.tx.chain_id == '8453'`), so int and string may be compared (as numbers).
 */
function comparable(a: Type, b: Type): boolean {
  if (isDynamic(a) || isDynamic(b)) return true;
  if ((a.kind === "int" && b.kind === "string") || (a.kind === "string" && b.kind === "int")) return true;
  if (a.kind === "list" && b.kind === "list") return comparable(a.item, b.item);
  if (a.kind === "struct" && b.kind === "struct") return a.name === b.name;
  return a.kind === b.kind;
}

function ordered(a: Type, b: Type): boolean {
  if (isDynamic(a) || isDynamic(b)) return true;
  if (a.kind === "int" || a.kind === "string") return b.kind === "int" || b.kind === "string";
  return a.kind === "timestamp" && b.kind === "timestamp";
}

class Checker {
  constructor(
    private readonly keywords: Record<string, Type>,
    private readonly field: PolicyField,
  ) {}

  private fail(node: Expr, message: string): never {
    throw new PolicySyntaxError(node.position, message);
  }

  private expect(node: Expr, scope: Map<string, Type>, wanted: Type, what: string): Type {
    const actual = this.check(node, scope);
    if (!isDynamic(actual) && actual.kind !== wanted.kind)
      this.fail(node, `${what} must be ${typeName(wanted)}, but is ${typeName(actual)}`);
    return actual;
  }

  check(node: Expr, scope: Map<string, Type>): Type {
    switch (node.kind) {
      case "bool":
        return BOOL;
      case "int":
        if (node.value >= 2n ** 256n) this.fail(node, "integer literal is larger than a u256");
        return INT;
      case "string":
        return STRING;
      case "list": {
        const types = node.items.map((item) => this.check(item, scope));
        const first = types.find((t) => !isDynamic(t)) ?? DYNAMIC;
        types.forEach((t, i) => {
          if (!comparable(t, first))
            this.fail(node.items[i]!, `list items must share one type: found ${typeName(t)} after ${typeName(first)}`);
        });
        return list(first);
      }
      case "identifier": {
        const bound = scope.get(node.name) ?? this.keywords[node.name];
        if (!bound) {
          const known = Object.keys(this.keywords).join(", ");
          this.fail(node, `unknown name '${node.name}'; in ${this.field} you can use ${known}`);
        }
        return bound;
      }
      case "not":
        this.expect(node.operand, scope, BOOL, "the operand of '!'");
        return BOOL;
      case "binary":
        return this.checkBinary(node, scope);
      case "field":
        return this.checkField(node, scope);
      case "index": {
        const target = this.check(node.target, scope);
        const index = this.check(node.index, scope);
        if (target.kind === "list" && isIntLike(index)) return target.item;
        if (target.kind === "string" && isIntLike(index)) return target;
        if (target.kind === "map" && (index.kind === "string" || isDynamic(index))) return target.value;
        if (target.kind === "struct" && node.index.kind === "string") {
          const field = target.fields[node.index.value];
          if (!field && target.open) return DYNAMIC;
          if (!field)
            this.fail(
              node.index,
              `${target.name} has no field '${node.index.value}'; its fields are ${Object.keys(target.fields).join(", ")}`,
            );
          return field;
        }
        if (isDynamic(target)) return DYNAMIC;
        return this.fail(node, `cannot index ${typeName(target)} with ${typeName(index)}`);
      }
      case "slice": {
        const target = this.check(node.target, scope);
        for (const bound of [node.start, node.end]) if (bound) this.expect(bound, scope, INT, "a slice bound");
        if (target.kind === "list" || target.kind === "string" || isDynamic(target)) return target;
        return this.fail(node, `only lists and strings can be sliced, not ${typeName(target)}`);
      }
      case "method":
        return this.checkMethod(node, scope);
      case "call":
        return this.checkCall(node, scope);
    }
  }

  private checkBinary(node: Extract<Expr, { kind: "binary" }>, scope: Map<string, Type>): Type {
    if (node.operator === "&&" || node.operator === "||") {
      // A flat chain (a && b && c) is checked in a loop, not by recursing down its left spine.
      chainOperands(node).forEach((operand, i) =>
        this.expect(operand, scope, BOOL, `the ${i === 0 ? "left" : "right"} side of '${node.operator}'`),
      );
      return BOOL;
    }
    const left = this.check(node.left, scope);
    const right = this.check(node.right, scope);
    const canon = canonOf(left) ?? canonOf(right);
    if (canon) node.canon = canon;
    if (node.operator === "in") {
      if (isDynamic(right)) return BOOL;
      if (right.kind !== "list") this.fail(node.right, `the right side of 'in' must be a list, but is ${typeName(right)}`);
      if (!comparable(left, right.item)) this.fail(node, `cannot look for ${typeName(left)} in ${typeName(right)}`);
      return BOOL;
    }
    if (node.operator === "==" || node.operator === "!=") {
      if (!comparable(left, right)) this.fail(node, `cannot compare ${typeName(left)} with ${typeName(right)}`);
      return BOOL;
    }
    if (!ordered(left, right))
      this.fail(node, `'${node.operator}' needs two integers, strings or timestamps, not ${typeName(left)} and ${typeName(right)}`);
    for (const [side, other] of [
      [node.left, right],
      [node.right, left],
    ] as const) {
      if (side.kind === "string" && other.kind === "int" && !/^\d+$/.test(side.value))
        this.fail(side, `'${node.operator}' compares an int with '${side.value}', which is not a number`);
    }
    return BOOL;
  }

  private checkField(node: Extract<Expr, { kind: "field" }>, scope: Map<string, Type>): Type {
    const target = this.check(node.target, scope);
    if (target.kind === "struct") {
      const field = target.fields[node.name];
      if (!field && target.open) return DYNAMIC;
      if (!field) this.fail(node, `${target.name} has no field '${node.name}'; its fields are ${Object.keys(target.fields).join(", ")}`);
      return field;
    }
    // `.count` without parentheses appears in the documentation; it means count().
    if (node.name === "count" && (target.kind === "list" || isDynamic(target))) return INT;
    if (target.kind === "map") return target.value;
    if (isDynamic(target)) return DYNAMIC;
    return this.fail(node, `${typeName(target)} has no field '${node.name}'`);
  }

  private checkMethod(node: Extract<Expr, { kind: "method" }>, scope: Map<string, Type>): Type {
    const target = this.check(node.target, scope);
    const item = target.kind === "list" ? target.item : DYNAMIC;
    if (target.kind !== "list" && !isDynamic(target) && !(node.name === "contains" && target.kind === "string")) {
      this.fail(node, `.${node.name}() applies to lists, not ${typeName(target)}`);
    }
    switch (node.name) {
      case "all":
      case "any":
      case "filter": {
        const inner = new Map(scope).set(node.variable!, item);
        this.expect(node.args[0]!, inner, BOOL, `the predicate of .${node.name}()`);
        return node.name === "filter" ? (isDynamic(target) ? DYNAMIC : target) : BOOL;
      }
      case "count":
        if (node.args.length !== 0) this.fail(node, ".count() takes no arguments");
        return INT;
      case "contains": {
        if (node.args.length !== 1) this.fail(node, ".contains() takes one value");
        const value = this.check(node.args[0]!, scope);
        const element = target.kind === "string" ? STRING : item;
        const canon = canonOf(target) ?? canonOf(value);
        if (canon) node.canon = canon;
        if (!comparable(value, element)) this.fail(node.args[0]!, `cannot look for ${typeName(value)} in ${typeName(target)}`);
        return BOOL;
      }
      default:
        return this.fail(node, `unknown method .${node.name}(); the methods are all, any, filter, count and contains`);
    }
  }

  private checkCall(node: Extract<Expr, { kind: "call" }>, scope: Map<string, Type>): Type {
    const arity = node.name === "Timestamp" ? 1 : 3;
    if (node.args.length !== arity) this.fail(node, `${node.name}() takes ${arity} argument${arity === 1 ? "" : "s"}`);
    node.args.forEach((arg, i) => this.expect(arg, scope, STRING, `argument ${i + 1} of ${node.name}()`));
    // Literal arguments are validated now, so a bad date, cron, duration or zone is refused at creation.
    try {
      if (node.name === "Timestamp" && node.args[0]!.kind === "string") parseTimestamp(node.args[0]!.value);
      if (node.name === "CronSpan" && node.args.every((a) => a.kind === "string")) {
        const [cron, duration, zone] = node.args.map((a) => (a as { value: string }).value) as [string, string, string];
        cronSpanActive(cron, duration, zone, Date.now());
      }
    } catch (error) {
      if (error instanceof PolicyEvaluationError) this.fail(node, error.message);
      throw error;
    }
    return node.name === "Timestamp" ? TIMESTAMP : BOOL;
  }
}

/** Type-checks an expression of a policy field; it must be a bool. Throws PolicySyntaxError. */
export function checkExpression(expr: Expr, field: PolicyField): void {
  const keywords = { ...KEYWORDS[field], ...KEYWORDS.time };
  const type = new Checker(keywords, field).check(expr, new Map());
  if (type.kind !== "bool" && type.kind !== "dynamic")
    throw new PolicySyntaxError(expr.position, `a ${field} must be a bool expression, but this one is ${typeName(type)}`);
}
