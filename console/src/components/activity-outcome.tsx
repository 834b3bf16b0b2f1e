import { useState } from "react";
import { describeStatus, describeType, messageOf, type Activity } from "../api/requests.js";
import { href } from "../routes.js";
import { ErrorNote } from "./common.js";

/**
 * Runs activities for a form: busy while one is under way, the API's error message on failure, and the last
 * activity's outcome (done, or waiting for consensus) for <ActivityOutcome>. `onCompleted` runs only when the
 * activity completed, so that a page reloads what really changed.
 */
export function useActivityRunner() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [activity, setActivity] = useState<Activity>();

  async function run(action: () => Promise<Activity>, onCompleted?: (activity: Activity) => void): Promise<Activity | undefined> {
    setBusy(true);
    setError(undefined);
    setActivity(undefined);
    try {
      const result = await action();
      setActivity(result);
      if (result.status === "ACTIVITY_STATUS_COMPLETED") onCompleted?.(result);
      return result;
    } catch (e) {
      setError(messageOf(e));
      return undefined;
    } finally {
      setBusy(false);
    }
  }

  return { busy, error, activity, run, clear: () => (setError(undefined), setActivity(undefined)) };
}

/** What became of a submitted activity: done, failed (with the API's message), or waiting for votes (with a link). */
export function ActivityOutcome({ activity, error, done }: { activity?: Activity; error?: string; done: string }) {
  if (error) return <ErrorNote error={error} />;
  if (!activity) return null;
  if (activity.status === "ACTIVITY_STATUS_COMPLETED")
    return (
      <p className="outcome status-completed" role="status">
        {done}
      </p>
    );
  if (activity.failure) return <ErrorNote error={activity.failure.message} />;
  return (
    <p className="outcome" role="status">
      {describeType(activity.type)}: <strong>{describeStatus(activity.status)}</strong>
      {activity.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED" ? " — it takes effect once enough approvers vote. " : ". "}
      <a href={href("activities", activity.id)}>See the activity</a>
    </p>
  );
}
