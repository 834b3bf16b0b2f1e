import { describeStatus, type Activity } from "../api/requests.js";
import { href } from "../routes.js";

/**
 * What became of an activity the page submitted, unless it simply completed: one that waits for consensus is shown
 * as waiting (with a link to it), never as done; a failed one shows the API's message.
 */
export function ActivityOutcome({ activity, what }: { activity?: Activity; what: string }) {
  if (!activity || activity.status === "ACTIVITY_STATUS_COMPLETED") return null;
  const failed = activity.status === "ACTIVITY_STATUS_FAILED" || activity.status === "ACTIVITY_STATUS_REJECTED";
  return (
    <p className={failed ? "error" : "notice"} role="status">
      {what}: {describeStatus(activity.status)}
      {activity.failure ? ` — ${activity.failure.message}` : ""}
      {activity.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED" ? " — it takes effect once enough approvers agree. " : ". "}
      <a href={href("activities", activity.id)}>See the activity</a>
    </p>
  );
}

export const completed = (activity: Activity) => activity.status === "ACTIVITY_STATUS_COMPLETED";
