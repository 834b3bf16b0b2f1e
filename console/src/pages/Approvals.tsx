import { useState } from "react";
import { describeType, messageOf, query, submit, toDate, type Activity } from "../api/requests.js";
import { ActivityDetail } from "../components/ActivityDetail.js";
import { ErrorNote, Loading, Section } from "../components/common.js";
import { useLoader } from "../components/use-loader.js";
import { useSession } from "../session-context.js";

/**
 * Activities waiting for consensus in the organization being viewed. Approving or rejecting is a vote stamped with
 * the user's own credential (a passkey sign-in asks for the passkey), decided by the policies like any other.
 */
export function Approvals() {
  const { connection, organizationId } = useSession();
  const pending = useLoader(
    () =>
      query<{ activities: Activity[] }>(connection.client, "list_activities", {
        organizationId,
        filterByStatus: ["ACTIVITY_STATUS_CONSENSUS_NEEDED"],
      }).then((r) => r.activities),
    [organizationId],
  );
  const [decided, setDecided] = useState<Activity[]>([]);

  return (
    <>
      <Section
        title="Waiting for you and other approvers"
        actions={
          <button className="secondary" onClick={pending.reload}>
            Refresh
          </button>
        }
      >
        <Loading when={pending.loading && !pending.data} />
        <ErrorNote error={pending.error} />
        {pending.data?.length === 0 && <p className="muted">Nothing waits for consensus.</p>}
        <ul className="cards">
          {pending.data?.map((activity) => (
            <li key={activity.id}>
              <PendingActivity
                activity={activity}
                onDecided={(result) => {
                  setDecided((previous) => [result, ...previous]);
                  pending.reload();
                }}
              />
            </li>
          ))}
        </ul>
      </Section>
      {decided.length > 0 && (
        <Section title="Decided here">
          <ul className="cards">
            {decided.map((activity) => (
              <li key={`${activity.id}:${activity.status}`} data-testid="decided-activity">
                <article className="card">
                  <h3>{describeType(activity.type)}</h3>
                  <ActivityDetail activity={activity} />
                </article>
              </li>
            ))}
          </ul>
        </Section>
      )}
    </>
  );
}

function PendingActivity({ activity, onDecided }: { activity: Activity; onDecided: (activity: Activity) => void }) {
  const { connection, organizationId } = useSession();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function vote(operation: "approve_activity" | "reject_activity") {
    setBusy(true);
    setError(undefined);
    try {
      onDecided(await submit(connection.voter, operation, organizationId, { fingerprint: activity.fingerprint }));
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <article className="card" data-testid="pending-activity" aria-label={`${describeType(activity.type)} ${activity.id}`}>
      <h3>
        {describeType(activity.type)} <small>{toDate(activity.createdAt).toLocaleString()}</small>
      </h3>
      <ActivityDetail activity={activity} />
      <ErrorNote error={error} />
      <div className="actions">
        <button disabled={busy || !activity.canApprove} onClick={() => void vote("approve_activity")}>
          Approve
        </button>
        <button className="danger" disabled={busy || !activity.canReject} onClick={() => void vote("reject_activity")}>
          Reject
        </button>
        {!activity.canApprove && <span className="muted">You have voted on this one, or cannot vote on it.</span>}
      </div>
    </article>
  );
}
