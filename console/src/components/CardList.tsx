import type { ReactNode } from "react";
import { ErrorNote, Loading } from "./common.js";

/** What a loader holds (see useLoader). */
interface Loaded<T> {
  data?: T;
  error?: string;
  loading: boolean;
}

/**
 * The console's one list of records shown as cards: while loading, the loader's error, `empty` when there is
 * nothing, else one card per item.
 */
export function CardList<Item>({
  loaded,
  empty,
  itemKey,
  label,
  itemTestId,
  children,
}: {
  loaded: Loaded<readonly Item[]>;
  /** Said when the list is empty. */
  empty?: string;
  itemKey: (item: Item) => string;
  /** The list's accessible name. */
  label?: string;
  itemTestId?: string;
  children: (item: Item) => ReactNode;
}) {
  return (
    <>
      <Loading when={loaded.loading && !loaded.data} />
      <ErrorNote error={loaded.error} />
      {empty && loaded.data?.length === 0 && <p className="muted">{empty}</p>}
      <ul className="cards" aria-label={label}>
        {loaded.data?.map((item) => (
          <li key={itemKey(item)} data-testid={itemTestId}>
            {children(item)}
          </li>
        ))}
      </ul>
    </>
  );
}
