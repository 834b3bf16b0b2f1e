import { useState } from "react";
import { describeType, messageOf, query, submit, toDate, type Activity } from "../api/requests.js";
import { ActivityDetail } from "../components/ActivityDetail.js";
import { CardList } from "../components/CardList.js";
import { ErrorNote, RefreshButton, Section } from "../components/common.js";
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
      <Section title="Waiting for you and other approvers" actions={<RefreshButton onClick={pending.reload} />}>
        <CardList loaded={pending} empty="Nothing waits for consensus." itemKey={(activity) => activity.id}>
          {(activity) => (
            <PendingActivity
              activity={activity}
              onDecided={(result) => {
                setDecided((previous) => [result, ...previous]);
                pending.reload();
              }}
            />
          )}
        </CardList>
      </Section>
      {decided.length > 0 && (
        <Section title="Decided here">
          <CardList
            loaded={{ data: decided, loading: false }}
            itemKey={(activity) => `${activity.id}:${activity.status}`}
            itemTestId="decided-activity"
          >
            {(activity) => (
              <article className="card">
                <h3>{describeType(activity.type)}</h3>
                <ActivityDetail activity={activity} />
              </article>
            )}
          </CardList>
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
