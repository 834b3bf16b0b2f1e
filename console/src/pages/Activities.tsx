import { useState } from "react";
import { ACTIVITY_TYPES } from "../api/operations.generated.js";
import { describeStatus, describeType, query, toDate, type Activity } from "../api/requests.js";
import { ActivityDetail } from "../components/ActivityDetail.js";
import { ErrorNote, Loading, Section } from "../components/common.js";
import { DataTable } from "../components/DataTable.js";
import { useLoader } from "../components/use-loader.js";
import { href } from "../routes.js";
import { useSession } from "../session-context.js";

const STATUSES = [
  "ACTIVITY_STATUS_COMPLETED",
  "ACTIVITY_STATUS_FAILED",
  "ACTIVITY_STATUS_CONSENSUS_NEEDED",
  "ACTIVITY_STATUS_REJECTED",
  "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED",
  "ACTIVITY_STATUS_PENDING",
];
const PAGE_SIZE = 50;

/** The organization's activities, newest first: filter by type and status (by the API), by user and time (here). */
export function Activities({ id }: { id?: string }) {
  return id ? <OneActivity id={id} /> : <ActivityLog />;
}

function OneActivity({ id }: { id: string }) {
  const { connection, organizationId } = useSession();
  const activity = useLoader(
    () => query<{ activity: Activity }>(connection.client, "get_activity", { organizationId, activityId: id }).then((r) => r.activity),
    [id, organizationId],
  );
  return (
    <Section
      title={activity.data ? describeType(activity.data.type) : "Activity"}
      actions={<a href={href("activities")}>All activities</a>}
    >
      <Loading when={activity.loading} />
      <ErrorNote error={activity.error} />
      {activity.data && <ActivityDetail activity={activity.data} />}
    </Section>
  );
}

function ActivityLog() {
  const { connection, organizationId } = useSession();
  const [type, setType] = useState("");
  const [status, setStatus] = useState("");
  const [user, setUser] = useState("");
  const [from, setFrom] = useState("");
  const [until, setUntil] = useState("");
  const [older, setOlder] = useState<Activity[]>([]);
  const [olderError, setOlderError] = useState<string>();

  const load = (after?: string) =>
    query<{ activities: Activity[] }>(connection.client, "list_activities", {
      organizationId,
      ...(type ? { filterByType: [type.trim()] } : {}),
      ...(status ? { filterByStatus: [status] } : {}),
      paginationOptions: { limit: String(PAGE_SIZE), ...(after ? { after } : {}) },
    }).then((r) => r.activities);
  const firstPage = useLoader(() => {
    setOlder([]);
    return load();
  }, [organizationId, type, status]);
  const users = useLoader(
    () =>
      query<{ users: { userId: string; userName: string }[] }>(connection.client, "list_users", { organizationId }).then((r) => r.users),
    [organizationId],
  );

  const all = [...(firstPage.data ?? []), ...older];
  const shown = all.filter((activity) => {
    const at = toDate(activity.createdAt).getTime();
    if (user && activity.votes[0]?.userId !== user) return false;
    if (from && at < new Date(from).getTime()) return false;
    if (until && at > new Date(until).getTime()) return false;
    return true;
  });
  const lastPageFull = (older.length > 0 ? older.length % PAGE_SIZE === 0 : (firstPage.data?.length ?? 0) === PAGE_SIZE) && all.length > 0;

  async function loadOlder() {
    setOlderError(undefined);
    try {
      const next = await load(all[all.length - 1]!.id);
      setOlder((previous) => [...previous, ...next]);
    } catch (e) {
      setOlderError(e instanceof Error ? e.message : String(e));
    }
  }

  return (
    <Section title="Activities">
      <form className="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Type
          <input value={type} onChange={(e) => setType(e.target.value)} placeholder={ACTIVITY_TYPES.create_wallet} spellCheck={false} />
        </label>
        <label>
          Status
          <select value={status} onChange={(e) => setStatus(e.target.value)}>
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {describeStatus(s)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Requested by
          <select value={user} onChange={(e) => setUser(e.target.value)}>
            <option value="">anyone</option>
            {users.data?.map((u) => (
              <option key={u.userId} value={u.userId}>
                {u.userName}
              </option>
            ))}
          </select>
        </label>
        <label>
          From
          <input type="datetime-local" value={from} onChange={(e) => setFrom(e.target.value)} />
        </label>
        <label>
          Until
          <input type="datetime-local" value={until} onChange={(e) => setUntil(e.target.value)} />
        </label>
      </form>
      <Loading when={firstPage.loading} />
      <ErrorNote error={firstPage.error} />
      <DataTable
        rows={shown}
        rowKey={(activity) => activity.id}
        columns={[
          { header: "When", cell: (activity) => toDate(activity.createdAt).toLocaleString() },
          { header: "What", cell: (activity) => <a href={href("activities", activity.id)}>{describeType(activity.type)}</a> },
          { header: "Status", cell: (activity) => describeStatus(activity.status) },
          { header: "Requested by", cell: (activity) => activity.votes[0]?.user?.userName ?? activity.votes[0]?.userId ?? "" },
        ]}
      />
      {shown.length === 0 && !firstPage.loading && <p className="muted">No activity matches.</p>}
      <ErrorNote error={olderError} />
      {lastPageFull && (
        <button className="secondary" onClick={() => void loadOlder()}>
          Load older
        </button>
      )}
    </Section>
  );
}
