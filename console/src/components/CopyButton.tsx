import { useEffect, useState } from "react";

/** Copies `text` to the clipboard; says so (visibly and to screen readers) for a moment. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const timer = setTimeout(() => setState("idle"), 2000);
    return () => clearTimeout(timer);
  }, [state]);

  return (
    <button
      type="button"
      className="secondary copy"
      aria-label={`Copy ${label}`}
      onClick={() =>
        void navigator.clipboard.writeText(text).then(
          () => setState("copied"),
          () => setState("failed"),
        )
      }
    >
      <span aria-live="polite">{state === "copied" ? "Copied" : state === "failed" ? "Copy failed" : "Copy"}</span>
    </button>
  );
}

/** An address (or any long identifier) with its copy button. */
export function Copyable({ text, label }: { text: string; label: string }) {
  return (
    <span className="copyable">
      <code>{text}</code>
      <CopyButton text={text} label={label} />
    </span>
  );
}
