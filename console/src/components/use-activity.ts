import { useState } from "react";
import { messageOf, type Activity } from "../api/requests.js";
import { completed } from "./ActivityOutcome.js";

/**
 * One activity at a time for a form or a button: busy while it runs, the API's message when it is refused, the
 * activity itself (for <ActivityOutcome>) when it did not simply complete; `onCompleted` runs when it did.
 */
export function useActivity(onCompleted: () => void) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [activity, setActivity] = useState<Activity>();
  async function run(send: () => Promise<Activity>): Promise<Activity | undefined> {
    setBusy(true);
    setError(undefined);
    setActivity(undefined);
    try {
      const result = await send();
      setActivity(result);
      if (completed(result)) onCompleted();
      return result;
    } catch (e) {
      setError(messageOf(e));
      return undefined;
    } finally {
      setBusy(false);
    }
  }
  return { busy, error, activity, run };
}
