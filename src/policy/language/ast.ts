/** The policy language's syntax tree. `position` is the offset of the node in the expression. */
export type Expr =
  | { kind: "bool"; value: boolean; position: number }
  | { kind: "int"; value: bigint; position: number }
  | { kind: "string"; value: string; position: number }
  | { kind: "list"; items: Expr[]; position: number }
  | { kind: "identifier"; name: string; position: number }
  | { kind: "not"; operand: Expr; position: number }
  | { kind: "binary"; operator: BinaryOperator; left: Expr; right: Expr; position: number }
  | { kind: "field"; target: Expr; name: string; position: number }
  | { kind: "index"; target: Expr; index: Expr; position: number }
  | { kind: "slice"; target: Expr; start: Expr | undefined; end: Expr | undefined; position: number }
  | { kind: "method"; target: Expr; name: string; args: Expr[]; variable?: string; position: number }
  | { kind: "call"; name: "Timestamp" | "CronSpan"; args: Expr[]; position: number };

export type BinaryOperator = "&&" | "||" | "==" | "!=" | "<" | ">" | "<=" | ">=" | "in";
