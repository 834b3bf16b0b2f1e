import { useState } from "react";
import { describeStatus, describeType, messageOf, type Activity } from "../api/requests.js";
import { href } from "../routes.js";
import { ErrorNote } from "./common.js";

export const completed = (activity: Activity) => activity.status === "ACTIVITY_STATUS_COMPLETED";

/**
 * One activity at a time for a form or a button: busy while it runs, the API's message when it is refused, and the
 * activity itself for <ActivityOutcome>. `onCompleted` runs only when the activity completed, so that a page reloads
 * what really changed (not what merely waits for votes).
 */
export function useActivity() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [activity, setActivity] = useState<Activity>();

  async function run(send: () => Promise<Activity>, onCompleted?: (activity: Activity) => void): Promise<Activity | undefined> {
    setBusy(true);
    setError(undefined);
    setActivity(undefined);
    try {
      const result = await send();
      setActivity(result);
      if (completed(result)) onCompleted?.(result);
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

/**
 * What became of a submitted activity: the API's error, the activity's failure, a confirmation when it completed
 * (`done`, or "Create wallet: done."), or its status with a link to it while it waits (for consensus, most often),
 * never shown as done.
 */
export function ActivityOutcome({ activity, error, done }: { activity?: Activity; error?: string; done?: string }) {
  if (error) return <ErrorNote error={error} />;
  if (!activity) return null;
  const link = <a href={href("activities", activity.id)}>See the activity</a>;
  if (completed(activity))
    return (
      <p className="notice status-completed" role="status">
        {done ?? `${describeType(activity.type)}: done.`}
      </p>
    );
  if (activity.failure || activity.status === "ACTIVITY_STATUS_FAILED" || activity.status === "ACTIVITY_STATUS_REJECTED")
    return (
      <p className="error" role="alert">
        {describeType(activity.type)}: {describeStatus(activity.status)}
        {activity.failure ? ` — ${activity.failure.message}` : ""}. {link}
      </p>
    );
  return (
    <p className="notice" role="status">
      {describeType(activity.type)}: <strong>{describeStatus(activity.status)}</strong>
      {activity.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED" ? " — it takes effect once enough approvers vote. " : ". "}
      {link}
    </p>
  );
}
