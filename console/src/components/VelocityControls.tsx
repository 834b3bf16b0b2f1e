import { useState } from "react";
import { query, submit, type Activity } from "../api/requests.js";
import { useSession } from "../session-context.js";
import { ActivityOutcome, completed, useActivity } from "./ActivityOutcome.js";
import { ErrorNote } from "./common.js";
import { DataTable } from "./DataTable.js";
import { useLoader } from "./use-loader.js";

/** A velocity control as get/list_velocity_controls answer it. */
export interface VelocityControl {
  velocityControlId: string;
  identifier: string;
  name: string;
  dataSource: {
    chainAssetTransfer?: { definition: { caip19: string; decimals: string }[]; filter?: { activity?: { activityType: string }[] } };
    activityExecution?: { filter?: { activity?: { activityType: string }[] } };
  };
  aggregation: {
    method: string;
    operator: string;
    threshold: string;
    window: { rolling?: { duration: string }; infinite?: object };
    groupBy: { organization?: object; user?: object; wallet?: object };
  };
}

const OPERATORS: Record<string, string> = {
  LESS_THAN: "<",
  LESS_THAN_OR_EQUAL: "≤",
  EQUAL: "=",
  GREATER_THAN_OR_EQUAL: "≥",
  GREATER_THAN: ">",
};
export const operatorSymbol = (operator: string) => OPERATORS[operator.replace(/^VELOCITY_CONTROL_AGGREGATION_OPERATOR_/, "")] ?? operator;

const typesOf = (filter?: { activity?: { activityType: string }[] }) => filter?.activity?.map((a) => a.activityType) ?? [];

/** "SUM of eip155:1/slip44:60 ≤ 1 per user over 86400 s" */
function describeControl(control: VelocityControl): string {
  const { dataSource, aggregation } = control;
  const method = aggregation.method.replace(/^VELOCITY_CONTROL_AGGREGATION_METHOD_/, "");
  const transfer = dataSource.chainAssetTransfer;
  const types = typesOf(transfer?.filter ?? dataSource.activityExecution?.filter);
  const what = transfer
    ? `transfers of ${transfer.definition.map((d) => d.caip19).join(", ")}`
    : `executions of ${types.length > 0 ? "" : "any activity"}`;
  const scope = types.length > 0 ? `${transfer ? " by " : ""}${types.join(", ")}` : "";
  const group = Object.keys(aggregation.groupBy)[0] ?? "organization";
  const window = aggregation.window.rolling ? `the last ${aggregation.window.rolling.duration} s` : "all time";
  return `${method} of ${what}${scope} ${operatorSymbol(aggregation.operator)} ${aggregation.threshold} per ${group} over ${window}`;
}

interface ControlDraft {
  name: string;
  identifier: string;
  source: "transfer" | "execution";
  /** One asset a line: "<caip19> <decimals>". */
  assets: string;
  /** Activity types, separated by commas or spaces. */
  activityTypes: string;
  method: "SUM" | "COUNT";
  operator: string;
  threshold: string;
  /** Seconds; empty: an infinite window. */
  windowSeconds: string;
  groupBy: "organization" | "user" | "wallet";
}

const NEW_CONTROL: ControlDraft = {
  name: "",
  identifier: "",
  source: "transfer",
  assets: "eip155:1/slip44:60 18",
  activityTypes: "",
  method: "SUM",
  operator: "LESS_THAN_OR_EQUAL",
  threshold: "",
  windowSeconds: "86400",
  groupBy: "user",
};

function draftOf(control: VelocityControl): ControlDraft {
  const transfer = control.dataSource.chainAssetTransfer;
  return {
    name: control.name,
    identifier: control.identifier,
    source: transfer ? "transfer" : "execution",
    assets: transfer ? transfer.definition.map((d) => `${d.caip19} ${d.decimals}`).join("\n") : "",
    activityTypes: typesOf(transfer?.filter ?? control.dataSource.activityExecution?.filter).join(", "),
    method: control.aggregation.method.endsWith("COUNT") ? "COUNT" : "SUM",
    operator: control.aggregation.operator.replace(/^VELOCITY_CONTROL_AGGREGATION_OPERATOR_/, ""),
    threshold: control.aggregation.threshold,
    windowSeconds: control.aggregation.window.rolling?.duration ?? "",
    groupBy: (Object.keys(control.aggregation.groupBy)[0] as ControlDraft["groupBy"] | undefined) ?? "organization",
  };
}

/** The create_velocity_control intent a draft stands for; the server checks it (and names the field at fault). */
function intentOf(draft: ControlDraft): Record<string, unknown> {
  const types = draft.activityTypes.split(/[\s,]+/).filter(Boolean);
  const filter = types.length > 0 ? { filter: { activity: types.map((activityType) => ({ activityType })) } } : {};
  const definition = draft.assets
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [caip19 = "", decimals = ""] = line.split(/\s+/);
      return { caip19, decimals };
    });
  return {
    name: draft.name.trim(),
    identifier: draft.identifier.trim(),
    dataSource: draft.source === "transfer" ? { chainAssetTransfer: { definition, ...filter } } : { activityExecution: filter },
    aggregation: {
      method: `VELOCITY_CONTROL_AGGREGATION_METHOD_${draft.method}`,
      operator: `VELOCITY_CONTROL_AGGREGATION_OPERATOR_${draft.operator}`,
      threshold: draft.threshold.trim(),
      window: draft.windowSeconds.trim() ? { rolling: { duration: draft.windowSeconds.trim() } } : { infinite: {} },
      groupBy: { [draft.groupBy]: {} },
    },
  };
}

/**
 * The organization's velocity controls beside its policies: listed (what each aggregates, its comparison, window and
 * grouping), created, deleted, and edited — the API has no update, so saving an edit deletes the control and creates
 * it again (its aggregates start over), which the form says.
 */
export function VelocityControls() {
  const { connection, organizationId } = useSession();
  const controls = useLoader(
    () =>
      query<{ velocityControls: VelocityControl[] }>(connection.client, "list_velocity_controls", {
        organizationId,
        paginationOptions: { limit: "100" },
      }).then((r) => r.velocityControls),
    [organizationId],
  );
  const [draft, setDraft] = useState<{ draft: ControlDraft; replacing?: VelocityControl }>();
  const [saved, setSaved] = useState<{ activity: Activity; done: string }>();
  const removal = useActivity();

  return (
    <>
      <div className="actions">
        <button className="secondary" onClick={() => setDraft({ draft: NEW_CONTROL })} disabled={draft !== undefined}>
          New velocity control
        </button>
      </div>
      <ActivityOutcome activity={saved?.activity} done={saved?.done} />
      <ActivityOutcome activity={removal.activity} error={removal.error} />
      <ErrorNote error={controls.error} />
      {controls.data && controls.data.length === 0 && (
        <p className="muted">No velocity control: policies name them as controls.&lt;identifier&gt;.</p>
      )}
      {controls.data && controls.data.length > 0 && (
        <DataTable
          label="Velocity controls"
          compact
          rows={controls.data}
          rowKey={(control) => control.velocityControlId}
          rowLabel={(control) => control.identifier}
          columns={[
            { header: "Policies read", rowHeader: true, cell: (control) => <code>controls.{control.identifier}</code> },
            { header: "Name", cell: (control) => control.name },
            { header: "Aggregate", cell: (control) => describeControl(control) },
          ]}
          actions={(control) => (
            <>
              <button
                className="secondary"
                onClick={() => setDraft({ draft: draftOf(control), replacing: control })}
                disabled={draft !== undefined}
              >
                Edit
              </button>
              <button
                className="danger"
                disabled={removal.busy}
                onClick={() =>
                  void removal.run(
                    () =>
                      submit(connection.client, "delete_velocity_control", organizationId, {
                        velocityControlId: control.velocityControlId,
                      }),
                    () => {
                      setSaved(undefined);
                      controls.reload();
                    },
                  )
                }
              >
                Delete {control.identifier}
              </button>
            </>
          )}
        />
      )}
      {draft && (
        <ControlEditor
          initial={draft.draft}
          replacing={draft.replacing}
          onCancel={() => setDraft(undefined)}
          onSaved={(activity, identifier) => {
            setSaved({ activity, done: `Velocity control “${identifier}” saved.` });
            setDraft(undefined);
            controls.reload();
          }}
        />
      )}
    </>
  );
}

function ControlEditor({
  initial,
  replacing,
  onCancel,
  onSaved,
}: {
  initial: ControlDraft;
  replacing?: VelocityControl;
  onCancel: () => void;
  onSaved: (activity: Activity, identifier: string) => void;
}) {
  const { connection, organizationId } = useSession();
  const [draft, setDraft] = useState(initial);
  const action = useActivity();
  const set = <K extends keyof ControlDraft>(key: K, value: ControlDraft[K]) => setDraft((d) => ({ ...d, [key]: value }));

  async function save() {
    await action.run(
      async () => {
        if (replacing) {
          const removed = await submit(connection.client, "delete_velocity_control", organizationId, {
            velocityControlId: replacing.velocityControlId,
          });
          if (!completed(removed)) return removed;
        }
        return submit(connection.client, "create_velocity_control", organizationId, intentOf(draft));
      },
      (activity) => onSaved(activity, draft.identifier.trim()),
    );
  }

  return (
    <form
      className="policy-editor"
      aria-label={replacing ? "Edit velocity control" : "New velocity control"}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <label>
        Name
        <input value={draft.name} onChange={(e) => set("name", e.target.value)} />
      </label>
      <label>
        Identifier
        <input value={draft.identifier} onChange={(e) => set("identifier", e.target.value)} spellCheck={false} autoCapitalize="off" />
      </label>
      <label>
        Data source
        <select value={draft.source} onChange={(e) => set("source", e.target.value as ControlDraft["source"])}>
          <option value="transfer">Asset transfers (chainAssetTransfer)</option>
          <option value="execution">Activity executions (activityExecution)</option>
        </select>
      </label>
      {draft.source === "transfer" && (
        <label>
          Assets (one a line: CAIP-19 id and decimals)
          <textarea
            className="code-input"
            rows={3}
            value={draft.assets}
            spellCheck={false}
            onChange={(e) => set("assets", e.target.value)}
          />
        </label>
      )}
      <label>
        Activity types (optional, comma-separated)
        <input value={draft.activityTypes} onChange={(e) => set("activityTypes", e.target.value)} spellCheck={false} autoCapitalize="off" />
      </label>
      <label>
        Method
        <select value={draft.method} onChange={(e) => set("method", e.target.value as ControlDraft["method"])}>
          <option value="SUM">SUM</option>
          <option value="COUNT">COUNT</option>
        </select>
      </label>
      <label>
        Comparison
        <select value={draft.operator} onChange={(e) => set("operator", e.target.value)}>
          {Object.entries(OPERATORS).map(([operator, symbol]) => (
            <option key={operator} value={operator}>
              {symbol} {operator.toLowerCase().replace(/_/g, " ")}
            </option>
          ))}
        </select>
      </label>
      <label>
        Threshold
        <input value={draft.threshold} onChange={(e) => set("threshold", e.target.value)} inputMode="decimal" />
      </label>
      <label>
        Rolling window in seconds (empty: all time)
        <input value={draft.windowSeconds} onChange={(e) => set("windowSeconds", e.target.value)} inputMode="numeric" />
      </label>
      <label>
        Per
        <select value={draft.groupBy} onChange={(e) => set("groupBy", e.target.value as ControlDraft["groupBy"])}>
          <option value="organization">organization</option>
          <option value="user">user</option>
          <option value="wallet">wallet</option>
        </select>
      </label>
      {replacing && (
        <p className="muted">The API has no update: saving deletes this control and creates it again, so its aggregates start over.</p>
      )}
      <ActivityOutcome activity={action.activity} error={action.error} />
      <div className="actions">
        <button type="submit" disabled={action.busy}>
          Save
        </button>
        <button type="button" className="secondary" onClick={onCancel} disabled={action.busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}
