import { useState, type FormEvent } from "react";
import { query, resultOf, submit, toDate, type ApiTimestamp } from "../api/requests.js";
import { ActivityOutcome, completed, useActivity } from "../components/ActivityOutcome.js";
import { Checklist } from "../components/choices.js";
import { CardList } from "../components/CardList.js";
import { ErrorNote, Loading, RefreshButton, Section } from "../components/common.js";
import { DataTable, type Column } from "../components/DataTable.js";
import { useLoader } from "../components/use-loader.js";
import { useSession } from "../session-context.js";

interface WebhookEndpoint {
  endpointId: string;
  url: string;
  name: string;
  isActive: boolean;
  subscriptions: { eventType: string; filtersJson?: string; isActive: boolean }[];
}

interface Delivery {
  eventId: string;
  eventType: string;
  status: string;
  attempts: number;
  lastStatusCode?: number;
  lastError?: string;
  createdAt: ApiTimestamp;
  nextAttemptAt?: ApiTimestamp;
  deliveredAt?: ApiTimestamp;
}

const EVENT_TYPES = [
  { value: "ACTIVITY_UPDATES", label: "Activity updates" },
  { value: "BALANCE_CONFIRMED_UPDATES", label: "Balance confirmed updates" },
  { value: "BALANCE_FINALIZED_UPDATES", label: "Balance finalized updates" },
];
const describeEvent = (eventType: string) => EVENT_TYPES.find((e) => e.value === eventType)?.label ?? eventType;
const DELIVERIES_SHOWN = 20;
const deliveryStatus = (delivery: Delivery) => delivery.status.replace(/^DELIVERY_STATUS_/, "").toLowerCase();

const DELIVERY_COLUMNS: Column<Delivery>[] = [
  { header: "Queued", cell: (delivery) => toDate(delivery.createdAt).toLocaleString() },
  { header: "Event", cell: (delivery) => describeEvent(delivery.eventType) },
  {
    header: "Status",
    cellClassName: (delivery) => `delivery-${deliveryStatus(delivery)}`,
    cell: (delivery) => (
      <>
        {deliveryStatus(delivery)}
        {delivery.deliveredAt ? ` ${toDate(delivery.deliveredAt).toLocaleTimeString()}` : ""}
        {delivery.nextAttemptAt ? `, next try ${toDate(delivery.nextAttemptAt).toLocaleTimeString()}` : ""}
      </>
    ),
  },
  { header: "Attempts", cell: (delivery) => delivery.attempts },
  {
    header: "Last answer",
    cell: (delivery) => (
      <>
        {delivery.lastStatusCode !== undefined ? `HTTP ${delivery.lastStatusCode}` : ""}
        {delivery.lastError ? ` ${delivery.lastError}` : ""}
      </>
    ),
  },
];

/** Webhook endpoints of the organization being viewed with their recent deliveries; create, pause or resume, delete. */
export function Webhooks() {
  const { connection, organizationId } = useSession();
  const endpoints = useLoader(
    () =>
      query<{ webhookEndpoints: WebhookEndpoint[] }>(connection.client, "list_webhook_endpoints", { organizationId }).then(
        (r) => r.webhookEndpoints,
      ),
    [organizationId],
  );

  return (
    <>
      <CreateEndpoint onCreated={endpoints.reload} />
      <Section title="Endpoints" actions={<RefreshButton onClick={endpoints.reload} />}>
        <CardList loaded={endpoints} empty="No webhook endpoint yet." itemKey={(endpoint) => endpoint.endpointId}>
          {(endpoint) => <EndpointCard endpoint={endpoint} onChanged={endpoints.reload} />}
        </CardList>
      </Section>
    </>
  );
}

function CreateEndpoint({ onCreated }: { onCreated: () => void }) {
  const { connection, organizationId } = useSession();
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [eventTypes, setEventTypes] = useState<string[]>(["ACTIVITY_UPDATES"]);
  const [enabled, setEnabled] = useState(true);
  const action = useActivity();

  const create = (event: FormEvent) => {
    event.preventDefault();
    void action.run(
      async () => {
        const activity = await submit(connection.client, "create_webhook_endpoint", organizationId, {
          name: name.trim(),
          url: url.trim(),
          subscriptions: eventTypes.map((eventType) => ({ eventType })),
        });
        // Endpoints are created active; a disabled one is paused right after, a second activity of its own.
        const endpointId = resultOf<{ endpointId?: string }>(activity, "create_webhook_endpoint")?.endpointId;
        if (enabled || !completed(activity) || !endpointId) return activity;
        return submit(connection.client, "update_webhook_endpoint", organizationId, {
          endpointId,
          isActive: false,
        });
      },
      () => {
        setName("");
        setUrl("");
        onCreated();
      },
    );
  };

  return (
    <Section title="Add an endpoint">
      <form onSubmit={create}>
        <div className="form-row">
          <label>
            Endpoint name
            <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={256} autoComplete="off" />
          </label>
          <label className="grow">
            URL
            <input
              type="url"
              value={url}
              onChange={(e) => setUrl(e.target.value)}
              required
              maxLength={2048}
              placeholder="https://example.com/hooks"
              spellCheck={false}
            />
          </label>
        </div>
        <Checklist inline legend="Event types" options={EVENT_TYPES} chosen={eventTypes} onChange={setEventTypes} />
        <div className="actions">
          <label className="inline">
            <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
            Enabled
          </label>
          <button type="submit" disabled={action.busy || eventTypes.length === 0}>
            {action.busy ? "Adding…" : "Add endpoint"}
          </button>
        </div>
      </form>
      <ActivityOutcome activity={action.activity} error={action.error} />
    </Section>
  );
}

function EndpointCard({ endpoint, onChanged }: { endpoint: WebhookEndpoint; onChanged: () => void }) {
  const { connection, organizationId } = useSession();
  const [deleting, setDeleting] = useState(false);
  const action = useActivity();
  const deliveries = useLoader(
    () =>
      query<{ deliveries: Delivery[] }>(connection.client, "list_webhook_deliveries", {
        organizationId,
        endpointId: endpoint.endpointId,
        limit: String(DELIVERIES_SHOWN),
      }).then((r) => r.deliveries),
    [organizationId, endpoint.endpointId],
  );

  const setActive = (isActive: boolean) =>
    void action.run(
      () =>
        submit(connection.client, "update_webhook_endpoint", organizationId, {
          endpointId: endpoint.endpointId,
          isActive,
        }),
      onChanged,
    );
  const remove = () =>
    void action.run(
      () =>
        submit(connection.client, "delete_webhook_endpoint", organizationId, {
          endpointId: endpoint.endpointId,
        }),
      onChanged,
    );

  return (
    <article className="card" aria-label={`Endpoint ${endpoint.name}`}>
      <h3>
        {endpoint.name}{" "}
        <small className={endpoint.isActive ? "status-completed" : "muted"}>{endpoint.isActive ? "enabled" : "paused"}</small>
      </h3>
      <dl className="facts">
        <dt>URL</dt>
        <dd>
          <code>{endpoint.url}</code>
        </dd>
        <dt>Events</dt>
        <dd>
          {endpoint.subscriptions
            .map((s) => `${describeEvent(s.eventType)}${s.filtersJson ? ` (filters ${s.filtersJson})` : ""}${s.isActive ? "" : " (off)"}`)
            .join(", ")}
        </dd>
        <dt>ID</dt>
        <dd>
          <code>{endpoint.endpointId}</code>
        </dd>
      </dl>
      <div className="actions">
        <button className="secondary" disabled={action.busy} onClick={() => setActive(!endpoint.isActive)}>
          {endpoint.isActive ? "Pause" : "Resume"}
        </button>
        <button className="secondary" disabled={action.busy} onClick={() => setDeleting(!deleting)} aria-expanded={deleting}>
          Delete…
        </button>
        {deleting && (
          <button className="danger" disabled={action.busy} onClick={remove}>
            Delete endpoint
          </button>
        )}
      </div>
      <ActivityOutcome activity={action.activity} error={action.error} />
      <div className="panel-header">
        <h4>Recent deliveries</h4>
        <button className="secondary" onClick={deliveries.reload}>
          Refresh deliveries
        </button>
      </div>
      <Loading when={deliveries.loading && !deliveries.data} />
      <ErrorNote error={deliveries.error} />
      {deliveries.data?.length === 0 && <p className="muted">Nothing sent yet.</p>}
      {deliveries.data && deliveries.data.length > 0 && (
        <DataTable
          label={`Deliveries to ${endpoint.name}`}
          rows={deliveries.data}
          rowKey={(delivery) => delivery.eventId}
          columns={DELIVERY_COLUMNS}
        />
      )}
    </article>
  );
}
