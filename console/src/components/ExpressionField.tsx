import { useId } from "react";
import type { ExpressionProblem } from "./policy-expression.js";

/**
 * A policy-language field whose problem (from the server's compiler, run here as the user types) is shown under
 * it: what is wrong, the line and column, and the line itself with a caret under the offending character.
 */
export function ExpressionField({
  label,
  hint,
  value,
  problem,
  onChange,
}: {
  label: string;
  hint: string;
  value: string;
  problem?: ExpressionProblem;
  onChange: (value: string) => void;
}) {
  const id = useId();
  const position = problem?.position;
  const offendingLine = position ? (value.split("\n")[position.line - 1] ?? "") : "";
  return (
    <div className="expression-field">
      <label htmlFor={`${id}-input`}>{label}</label>
      <textarea
        id={`${id}-input`}
        className="code-input"
        value={value}
        rows={3}
        spellCheck={false}
        autoCapitalize="off"
        autoComplete="off"
        aria-invalid={problem ? true : undefined}
        aria-describedby={`${id}-hint ${id}-problem`}
        onChange={(e) => onChange(e.target.value)}
      />
      <small id={`${id}-hint`} className="muted">
        {hint}
      </small>
      <div id={`${id}-problem`} aria-live="polite">
        {problem && (
          <div className="expression-problem" data-testid={`${label.toLowerCase()}-problem`}>
            <p className="error">
              {position ? `Line ${position.line}, column ${position.column}: ` : ""}
              {problem.message}
            </p>
            {position && (
              <pre className="caret" aria-hidden="true">
                {offendingLine}
                {"\n"}
                {" ".repeat(position.column - 1)}^
              </pre>
            )}
          </div>
        )}
      </div>
    </div>
  );
}
