/** Tokens of the policy language. Strings are single-quoted; numbers are unsigned decimal integers. */
export type TokenKind = "identifier" | "string" | "number" | "punct" | "end";

export interface Token {
  kind: TokenKind;
  /** Identifier name, string contents, digits, or the punctuation itself. */
  value: string;
  /** Offset of the token's first character in the expression. */
  position: number;
}

export class PolicySyntaxError extends Error {
  constructor(
    readonly position: number,
    readonly detail: string,
  ) {
    super(`at position ${position}: ${detail}`);
    this.name = "PolicySyntaxError";
  }
}

const PUNCTUATION = ["&&", "||", "==", "!=", "<=", ">=", "..", "<", ">", "!", "(", ")", "[", "]", ",", "."];

export function describeToken(token: Token): string {
  if (token.kind === "end") return "the end of the expression";
  if (token.kind === "string") return `the string '${token.value}'`;
  return `'${token.value}'`;
}

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === "'") {
      const start = i;
      let value = "";
      i++;
      while (i < source.length && source[i] !== "'") {
        if (source[i] === "\\" && i + 1 < source.length) i++;
        value += source[i];
        i++;
      }
      if (i >= source.length) throw new PolicySyntaxError(start, "unterminated string: expected a closing '");
      i++;
      tokens.push({ kind: "string", value, position: start });
      continue;
    }
    if (c === '"') throw new PolicySyntaxError(i, "strings are single-quoted ('like this'); double quotes are not supported");
    if (/[0-9]/.test(c)) {
      const start = i;
      while (i < source.length && /[0-9]/.test(source[i]!)) i++;
      tokens.push({ kind: "number", value: source.slice(start, i), position: start });
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      const start = i;
      while (i < source.length && /[A-Za-z0-9_]/.test(source[i]!)) i++;
      tokens.push({ kind: "identifier", value: source.slice(start, i), position: start });
      continue;
    }
    const punct = PUNCTUATION.find((p) => source.startsWith(p, i));
    if (!punct) throw new PolicySyntaxError(i, `unexpected character '${c}'`);
    tokens.push({ kind: "punct", value: punct, position: i });
    i += punct.length;
  }
  tokens.push({ kind: "end", value: "", position: source.length });
  return tokens;
}
