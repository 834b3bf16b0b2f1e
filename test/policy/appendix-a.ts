import { readFileSync } from "node:fs";
import { sharedReferenceFile } from "../helpers/shared-reference.js";
import type { PolicyField } from "../../src/policy/language/index.js";

export interface ExamplePolicyExpression {
  example: string;
  field: PolicyField;
  source: string;
}

/**
 * Every condition, consensus and time expression of the documentation's example policies
 * (semantics.md Appendix A). The examples are documentation, not all literal policy text: template
 * holes (`${userId}`) become a string, a templated list (`${JSON.stringify(list)}`) a list of one
 * string, and a bare `<PLACEHOLDER>` a string (a number after `<` or `>`), which is what they stand for.
 */
export function appendixAExpressions(): ExamplePolicyExpression[] | undefined {
  const reference = sharedReferenceFile("reference/semantics.md", "the Appendix A example policies");
  if (!reference) return undefined;
  const text = readFileSync(reference, "utf8");
  const section = text.slice(text.indexOf("## Appendix A"), text.indexOf("## Appendix B"));
  const found: ExamplePolicyExpression[] = [];
  for (const block of section.split(/\n(?=A\.\d+ )/).slice(1)) {
    const example = block.split("\n")[0]!.split(" ")[0]!;
    const pattern = /["']?(condition|consensus|time)["']?\s*:\s*("(?:[^"\\]|\\.)*"|`[^`]*`)/g;
    for (const match of block.matchAll(pattern)) {
      const raw = match[2]!;
      let source = raw.startsWith('"') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
      source = source
        .replace(/\$\{JSON\.stringify\([^}]*\)\}/g, "['value']")
        .replace(/'\$\{[^}]*\}'/g, "'value'")
        .replace(/\$\{[^}]*\}/g, "'value'")
        .replace(/([<>]=?\s*)<[A-Z_0-9 ]+>/g, "$10")
        .replace(/(?<!')<([A-Z_0-9 ]+)>(?!')/g, "'$1'");
      found.push({ example, field: match[1] as PolicyField, source });
    }
  }
  return found;
}
