import { useCallback, useEffect, useState } from "react";
import { messageOf } from "../api/requests.js";

/** Loads `load()` when its dependencies change; `reload` runs it again. */
export function useLoader<T>(load: () => Promise<T>, deps: unknown[]): { data?: T; error?: string; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const [generation, setGeneration] = useState(0);
  const run = useCallback(load, deps);
  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true }));
    run().then(
      (data) => current && setState({ data, loading: false }),
      (error: unknown) => current && setState({ error: messageOf(error), loading: false }),
    );
    return () => {
      current = false;
    };
  }, [run, generation]);
  return { ...state, reload: () => setGeneration((g) => g + 1) };
}
