import type { ReactNode } from "react";

export function ErrorNote({ error }: { error?: string }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {error}
    </p>
  );
}

export function Loading({ when }: { when: boolean }) {
  return when ? <p className="muted">Loading…</p> : null;
}

export function Json({ value }: { value: unknown }) {
  return <pre className="json">{JSON.stringify(value, null, 2)}</pre>;
}

export function Section({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  return (
    <section className="panel">
      <header className="panel-header">
        <h2>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}

export function RefreshButton({ onClick }: { onClick: () => void }) {
  return (
    <button className="secondary" onClick={onClick}>
      Refresh
    </button>
  );
}

/** A row's Delete button, naming to screen readers what it deletes. */
export function DeleteButton({
  what,
  onClick,
  disabled,
  label = "Delete",
}: {
  what: string;
  onClick: () => void;
  disabled?: boolean;
  label?: string;
}) {
  return (
    <button className="secondary" disabled={disabled} onClick={onClick}>
      {label}
      <span className="visually-hidden"> {what}</span>
    </button>
  );
}
