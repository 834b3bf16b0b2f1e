import type { Expr } from "../language/index.js";

/**
 * The velocity controls a policy expression names: `controls.<identifier>` and `controls['<identifier>']`;
 * "all" when it reads `controls` any other way (a computed key), so every control is read for it.
 */
export function namedControls(expr: Expr): Set<string> | "all" {
  const names = new Set<string>();
  const stack: Expr[] = [expr];
  while (stack.length > 0) {
    const node = stack.pop()!;
    switch (node.kind) {
      case "identifier":
        if (node.name === "controls") return "all";
        break;
      case "field":
        if (node.target.kind === "identifier" && node.target.name === "controls") names.add(node.name);
        else stack.push(node.target);
        break;
      case "index":
        if (node.target.kind === "identifier" && node.target.name === "controls" && node.index.kind === "string")
          names.add(node.index.value);
        else stack.push(node.target, node.index);
        break;
      case "list":
        stack.push(...node.items);
        break;
      case "not":
        stack.push(node.operand);
        break;
      case "binary":
        stack.push(node.left, node.right);
        break;
      case "slice":
        stack.push(node.target, ...(node.start ? [node.start] : []), ...(node.end ? [node.end] : []));
        break;
      case "method":
      case "call":
        stack.push(...("target" in node ? [node.target] : []), ...node.args);
        break;
    }
  }
  return names;
}
