/** Something to choose: what is sent, and what the user reads. */
export interface Option {
  value: string;
  label: string;
}

/** A <select>'s options. */
export function Options({ options }: { options: readonly Option[] }) {
  return (
    <>
      {options.map((option) => (
        <option key={option.value} value={option.value}>
          {option.label}
        </option>
      ))}
    </>
  );
}

/** Checkboxes choosing some of `options`, stacked (a form's choice) or side by side (`inline`, formats and event types). */
export function Checklist({
  legend,
  options,
  chosen,
  onChange,
  inline,
}: {
  legend: string;
  options: readonly Option[];
  chosen: readonly string[];
  onChange: (values: string[]) => void;
  inline?: boolean;
}) {
  return (
    <fieldset className={inline ? "format-choice" : "choice"}>
      <legend>{legend}</legend>
      {options.map((option) => (
        <label key={option.value} className={inline ? "inline" : undefined}>
          <input
            type="checkbox"
            checked={chosen.includes(option.value)}
            onChange={(e) => onChange(e.target.checked ? [...chosen, option.value] : chosen.filter((value) => value !== option.value))}
          />
          {inline ? "" : " "}
          {option.label}
        </label>
      ))}
    </fieldset>
  );
}
