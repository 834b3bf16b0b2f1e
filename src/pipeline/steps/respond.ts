import type { ActivityRecord } from "../../records/activity.js";
import type { Services } from "../../services.js";
import type { AfterCommitTask } from "./execute.js";

/** What /public/v1/submit answers: the activity, as the API returns it. */
export interface ActivityOutcome {
  activity: ActivityRecord;
}

/**
 * Step "respond", after the commit: the webhook worker is woken for what was queued, the audit log's integrator
 * for the entry written, and the work handlers deferred until commit (an email, say) starts; its failures go to
 * the log, never to the caller.
 */
export function afterCommit(services: Services, queued: boolean, tasks: AfterCommitTask[], onError: (error: unknown) => void): void {
  if (queued) services.webhooks.wake();
  services.audit.wake();
  for (const task of tasks) task().catch(onError);
}
