import type { BinaryOperator, Expr } from "./ast.js";
import { POLICY_LIMITS } from "./budget.js";
import { describeToken, PolicySyntaxError, tokenize, type Token } from "./lexer.js";

const COMPARISONS = new Set(["==", "!=", "<", ">", "<=", ">="]);
/** Methods taking `(item, predicate)`; the item name is bound inside the predicate. */
const LAMBDA_METHODS = new Set(["all", "any", "filter"]);
const FUNCTIONS = new Set(["Timestamp", "CronSpan"]);

/**
 * A recursive-descent parser. Precedence, loosest first: `||`, `&&`, `!`, comparisons and `in`
 * (not chainable), then postfix access (`.field`, `[i]`, `[a..b]`, `.method(…)`). Nesting is limited
 * (POLICY_LIMITS.maxNesting), so neither the parser nor the checker and evaluator, which recurse along the
 * tree it builds, can run out of stack.
 */
class Parser {
  private index = 0;
  /** How deeply the expression being parsed is nested: sub-expressions, '!' and postfix accesses. */
  private depth = 0;
  constructor(private readonly tokens: Token[]) {}

  private get current(): Token {
    return this.tokens[this.index]!;
  }

  private advance(): Token {
    const token = this.current;
    if (token.kind !== "end") this.index++;
    return token;
  }

  private isPunct(value: string): boolean {
    return this.current.kind === "punct" && this.current.value === value;
  }

  private expectPunct(value: string, context: string): Token {
    if (!this.isPunct(value))
      throw new PolicySyntaxError(this.current.position, `expected '${value}' ${context}, but found ${describeToken(this.current)}`);
    return this.advance();
  }

  private expectIdentifier(context: string): Token {
    if (this.current.kind !== "identifier")
      throw new PolicySyntaxError(this.current.position, `expected a name ${context}, but found ${describeToken(this.current)}`);
    return this.advance();
  }

  /** Enters one more level of nesting at `position`; refused past the limit. */
  private nest(position: number): void {
    this.depth += 1;
    if (this.depth > POLICY_LIMITS.maxNesting) {
      throw new PolicySyntaxError(
        position,
        `the expression nests more than ${POLICY_LIMITS.maxNesting} levels deep (parentheses, '!', lists, method calls, indexes and field accesses inside one another); write it flatter`,
      );
    }
  }

  parse(): Expr {
    const expr = this.parseOr();
    if (this.current.kind !== "end") {
      throw new PolicySyntaxError(
        this.current.position,
        `expected an operator ('&&', '||', '==', …) or the end of the expression, but found ${describeToken(this.current)}`,
      );
    }
    return expr;
  }

  private parseOr(): Expr {
    this.nest(this.current.position);
    let left = this.parseAnd();
    while (this.isPunct("||")) {
      const { position } = this.advance();
      left = { kind: "binary", operator: "||", left, right: this.parseAnd(), position };
    }
    this.depth--;
    return left;
  }

  private parseAnd(): Expr {
    let left = this.parseUnary();
    while (this.isPunct("&&")) {
      const { position } = this.advance();
      left = { kind: "binary", operator: "&&", left, right: this.parseUnary(), position };
    }
    return left;
  }

  private parseUnary(): Expr {
    if (this.isPunct("!")) {
      const { position } = this.advance();
      this.nest(position);
      const operand = this.parseUnary();
      this.depth--;
      return { kind: "not", operand, position };
    }
    return this.parseComparison();
  }

  private parseComparison(): Expr {
    const left = this.parsePostfix();
    const token = this.current;
    const isIn = token.kind === "identifier" && token.value === "in";
    if ((token.kind === "punct" && COMPARISONS.has(token.value)) || isIn) {
      this.advance();
      const right = this.parsePostfix();
      return { kind: "binary", operator: token.value as BinaryOperator, left, right, position: token.position };
    }
    return left;
  }

  private parsePostfix(): Expr {
    const expr = this.parsePrimary();
    const outer = this.depth;
    try {
      return this.parseAccesses(expr);
    } finally {
      this.depth = outer;
    }
  }

  /** `.field`, `[i]`, `[a..b]` and `.method(…)` after `expr`; each one nests the tree one level deeper. */
  private parseAccesses(target: Expr): Expr {
    let expr = target;
    for (;;) {
      if (this.isPunct(".") || this.isPunct("[")) this.nest(this.current.position);
      if (this.isPunct(".")) {
        const dot = this.advance();
        const name = this.expectIdentifier("after '.'").value;
        if (this.isPunct("(")) {
          this.advance();
          expr = this.parseMethod(expr, name, dot.position);
        } else {
          expr = { kind: "field", target: expr, name, position: dot.position };
        }
      } else if (this.isPunct("[")) {
        const open = this.advance();
        let start: Expr | undefined;
        if (!this.isPunct("..")) start = this.parseOr();
        if (this.isPunct("..")) {
          this.advance();
          const end = this.isPunct("]") ? undefined : this.parseOr();
          this.expectPunct("]", "to close the slice");
          expr = { kind: "slice", target: expr, start, end, position: open.position };
        } else {
          this.expectPunct("]", "to close the index");
          expr = { kind: "index", target: expr, index: start!, position: open.position };
        }
      } else {
        return expr;
      }
    }
  }

  private parseMethod(target: Expr, name: string, position: number): Expr {
    if (LAMBDA_METHODS.has(name)) {
      const variable = this.expectIdentifier(`naming the item in .${name}(item, predicate)`).value;
      this.expectPunct(",", `after the item name in .${name}(item, predicate)`);
      const predicate = this.parseOr();
      this.expectPunct(")", `to close .${name}(…)`);
      return { kind: "method", target, name, args: [predicate], variable, position };
    }
    return { kind: "method", target, name, args: this.parseItems(")", `to close .${name}(…)`), position };
  }

  /** Comma-separated expressions up to `close`, which is consumed. */
  private parseItems(close: string, context: string): Expr[] {
    const items: Expr[] = [];
    if (!this.isPunct(close)) {
      items.push(this.parseOr());
      while (this.isPunct(",")) {
        this.advance();
        items.push(this.parseOr());
      }
    }
    this.expectPunct(close, context);
    return items;
  }

  private parsePrimary(): Expr {
    const token = this.current;
    if (token.kind === "string") {
      this.advance();
      return { kind: "string", value: token.value, position: token.position };
    }
    if (token.kind === "number") {
      this.advance();
      return { kind: "int", value: BigInt(token.value), position: token.position };
    }
    if (token.kind === "identifier") {
      this.advance();
      if (token.value === "true" || token.value === "false")
        return { kind: "bool", value: token.value === "true", position: token.position };
      if (FUNCTIONS.has(token.value) && this.isPunct("(")) {
        this.advance();
        const args = this.parseItems(")", `to close ${token.value}(…)`);
        return { kind: "call", name: token.value as "Timestamp" | "CronSpan", args, position: token.position };
      }
      return { kind: "identifier", name: token.value, position: token.position };
    }
    if (this.isPunct("(")) {
      this.advance();
      const inner = this.parseOr();
      this.expectPunct(")", "to close the parenthesis");
      return inner;
    }
    if (this.isPunct("[")) {
      const open = this.advance();
      return { kind: "list", items: this.parseItems("]", "to close the list"), position: open.position };
    }
    throw new PolicySyntaxError(
      token.position,
      `expected a value (a name, a 'string', a number, true, false, a list or a parenthesis), but found ${describeToken(token)}`,
    );
  }
}

export function parseExpression(source: string): Expr {
  return new Parser(tokenize(source)).parse();
}
