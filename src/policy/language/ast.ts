import type { Canon } from "./canonical.js";

/**
 * The policy language's syntax tree. `position` is the offset of the node in the expression. The type
 * checker sets `canon` on comparisons, `in` and `.contains()` whose operands have several spellings.
 */
export type Expr =
  | { kind: "bool"; value: boolean; position: number }
  | { kind: "int"; value: bigint; position: number }
  | { kind: "string"; value: string; position: number }
  | { kind: "list"; items: Expr[]; position: number }
  | { kind: "identifier"; name: string; position: number }
  | { kind: "not"; operand: Expr; position: number }
  | { kind: "binary"; operator: BinaryOperator; left: Expr; right: Expr; position: number; canon?: Canon }
  | { kind: "field"; target: Expr; name: string; position: number }
  | { kind: "index"; target: Expr; index: Expr; position: number }
  | { kind: "slice"; target: Expr; start: Expr | undefined; end: Expr | undefined; position: number }
  | { kind: "method"; target: Expr; name: string; args: Expr[]; variable?: string; position: number; canon?: Canon }
  | { kind: "call"; name: "Timestamp" | "CronSpan"; args: Expr[]; position: number };

export type BinaryOperator = "&&" | "||" | "==" | "!=" | "<" | ">" | "<=" | ">=" | "in";

/** `a && b && c` parses as ((a && b) && c): the operands of the chain, left to right, found without recursion. */
export function chainOperands(node: Extract<Expr, { kind: "binary" }>): Expr[] {
  const operands: Expr[] = [];
  let current: Expr = node;
  while (current.kind === "binary" && current.operator === node.operator) {
    operands.push(current.right);
    current = current.left;
  }
  operands.push(current);
  return operands.reverse();
}
