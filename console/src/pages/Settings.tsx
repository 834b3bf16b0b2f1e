import { useState, type FormEvent } from "react";
import { getRootQuorum, listUsers, type Quorum, type User } from "../api/identity.js";
import { query, submit } from "../api/requests.js";
import { getSealStatus } from "../api/seal.js";
import { ActivityOutcome, useActivity } from "../components/ActivityOutcome.js";
import { DeleteButton, ErrorNote, Loading, Section } from "../components/common.js";
import { Checklist } from "../components/choices.js";
import { DataTable } from "../components/DataTable.js";
import { useLoader } from "../components/use-loader.js";
import { useSession } from "../session-context.js";

/** The features Strongroom acts on (src/domains/organizations/features.ts): authentication methods, on unless "false". */
const FEATURES = [
  { name: "FEATURE_NAME_EMAIL_AUTH", label: "Email auth" },
  { name: "FEATURE_NAME_EMAIL_RECOVERY", label: "Email recovery" },
  { name: "FEATURE_NAME_SMS_AUTH", label: "SMS auth" },
  { name: "FEATURE_NAME_OTP_EMAIL_AUTH", label: "OTP email auth" },
];

interface Allowlist {
  rules: { cidr: string; label?: string }[];
  enabled?: boolean;
  onEvaluationError?: string;
}

/** The organization's root quorum, authentication features and IP allowlist. */
export function Settings() {
  const { connection, organizationId } = useSession();
  const configs = useLoader(() => getRootQuorum(connection.client, organizationId), [organizationId]);
  const users = useLoader(() => listUsers(connection.client, organizationId), [organizationId]);
  const organization = useLoader(
    () =>
      query<{ organizationData: { name: string } }>(connection.client, "get_organization", { organizationId }).then(
        (r) => r.organizationData,
      ),
    [organizationId],
  );

  return (
    <>
      <Section title="Organization">
        <ErrorNote error={organization.error} />
        <dl className="facts">
          <dt>Name</dt>
          <dd>{organization.data?.name ?? ""}</dd>
          <dt>ID</dt>
          <dd>
            <code>{organizationId}</code>
          </dd>
        </dl>
      </Section>
      <Loading when={configs.loading && !configs.data} />
      <ErrorNote error={configs.error ?? users.error} />
      {configs.data && users.data && <RootQuorum quorum={configs.data.quorum} users={users.data} onChanged={configs.reload} />}
      {configs.data && <Features features={configs.data.features} onChanged={configs.reload} />}
      <IpAllowlist />
      <ServerSeal />
    </>
  );
}

/** How the server's keys are sealed (GET /strongroom/v1/seal-status): the whole server's, not the organization's. */
function ServerSeal() {
  const seal = useLoader(getSealStatus, []);
  return (
    <Section title="Server seal">
      <ErrorNote error={seal.error} />
      {seal.data && (
        <dl className="facts" aria-label="Server seal">
          <dt>Seal provider</dt>
          <dd>
            <code>{seal.data.type}</code>
            {seal.data.t > 0 && ` (${seal.data.t} of ${seal.data.n} key shares unseal it)`}
          </dd>
          <dt>State</dt>
          <dd>{seal.data.sealed ? "sealed" : "unsealed"}</dd>
          {seal.data.keyVersion !== undefined && (
            <>
              <dt>Data key version</dt>
              <dd>{seal.data.keyVersion}</dd>
            </>
          )}
        </dl>
      )}
    </Section>
  );
}

function RootQuorum({ quorum, users, onChanged }: { quorum: Quorum; users: User[]; onChanged: () => void }) {
  const { connection, organizationId } = useSession();
  const [userIds, setUserIds] = useState(quorum.userIds);
  const [threshold, setThreshold] = useState(String(quorum.threshold));
  const action = useActivity();

  const save = (event: FormEvent) => {
    event.preventDefault();
    void action.run(
      () =>
        submit(connection.client, "update_root_quorum", organizationId, {
          userIds,
          threshold: Number(threshold),
        }),
      onChanged,
    );
  };

  return (
    <Section title="Root quorum">
      <p className="muted">
        The root quorum may do anything in the organization; its activities need {quorum.threshold} of its {quorum.userIds.length} users'
        approval. Changing it needs the root quorum itself.
      </p>
      <form className="inline-form" onSubmit={save} aria-label="Root quorum">
        <Checklist
          legend="Users in the root quorum"
          options={users.map((user) => ({ value: user.userId, label: user.userName }))}
          chosen={userIds}
          onChange={setUserIds}
        />
        <label>
          Approvals needed (threshold)
          <input
            type="number"
            min={1}
            max={Math.max(1, userIds.length)}
            value={threshold}
            onChange={(e) => setThreshold(e.target.value)}
            required
          />
        </label>
        <div className="actions">
          <button type="submit" disabled={action.busy || userIds.length === 0}>
            Save root quorum
          </button>
        </div>
        <ActivityOutcome activity={action.activity} error={action.error} done="Root quorum saved." />
      </form>
    </Section>
  );
}

function Features({ features, onChanged }: { features: { name: string; value: string }[]; onChanged: () => void }) {
  const { connection, organizationId } = useSession();
  const action = useActivity();
  const valueOf = (name: string) => features.find((f) => f.name === name)?.value ?? "";

  const change = (name: string, value: string) =>
    void action.run(
      () =>
        value === ""
          ? submit(connection.client, "remove_organization_feature", organizationId, { name })
          : submit(connection.client, "set_organization_feature", organizationId, {
              name,
              value,
            }),
      onChanged,
    );

  return (
    <Section title="Authentication features">
      <p className="muted">Each method is on unless set to off. Changing one needs the root quorum.</p>
      <div className="feature-list">
        {FEATURES.map((feature) => (
          <label key={feature.name}>
            {feature.label}
            <select
              aria-label={feature.label}
              value={valueOf(feature.name)}
              disabled={action.busy}
              onChange={(e) => change(feature.name, e.target.value)}
            >
              <option value="">default (on)</option>
              <option value="true">on</option>
              <option value="false">off</option>
            </select>
          </label>
        ))}
      </div>
      <ActivityOutcome activity={action.activity} error={action.error} done="Feature saved." />
    </Section>
  );
}

function IpAllowlist() {
  const { connection, organizationId } = useSession();
  const allowlist = useLoader(
    () => query<{ allowlist: Allowlist }>(connection.client, "get_ip_allowlist", { organizationId }).then((r) => r.allowlist),
    [organizationId],
  );
  return (
    <Section title="IP allowlist">
      <Loading when={allowlist.loading && !allowlist.data} />
      <ErrorNote error={allowlist.error} />
      {allowlist.data && <AllowlistEditor saved={allowlist.data} onChanged={allowlist.reload} />}
    </Section>
  );
}

function AllowlistEditor({ saved, onChanged }: { saved: Allowlist; onChanged: () => void }) {
  const { connection, organizationId } = useSession();
  const [rules, setRules] = useState(saved.rules.map(({ cidr, label }) => ({ cidr, label: label ?? "" })));
  const [enabled, setEnabled] = useState(saved.enabled ?? false);
  const [onEvaluationError, setOnEvaluationError] = useState(saved.onEvaluationError ?? "DENY");
  const [cidr, setCidr] = useState("");
  const [label, setLabel] = useState("");
  const action = useActivity();

  const add = (event: FormEvent) => {
    event.preventDefault();
    setRules([...rules, { cidr: cidr.trim(), label: label.trim() }]);
    setCidr("");
    setLabel("");
  };
  const save = () =>
    void action.run(
      () =>
        submit(connection.client, "set_ip_allowlist", organizationId, {
          enabled,
          onEvaluationError,
          rules: rules.map((r) => ({ cidr: r.cidr, ...(r.label ? { label: r.label } : {}) })),
        }),
      onChanged,
    );
  const remove = () =>
    void action.run(
      () => submit(connection.client, "remove_ip_allowlist", organizationId, {}),
      () => {
        setRules([]);
        setEnabled(false);
        setOnEvaluationError("DENY");
        onChanged();
      },
    );

  return (
    <>
      <p className="muted">
        When enabled, requests to this organization are accepted only from these blocks (at most /20 for IPv4, /48 for IPv6). Keep the
        address you use this console from in the list, or the console is locked out too.
      </p>
      {rules.length === 0 ? (
        <p className="muted">No rules.</p>
      ) : (
        <DataTable
          compact
          label="IP allowlist rules"
          rows={rules}
          rowKey={(rule, index) => `${rule.cidr}:${index}`}
          columns={[
            { header: "CIDR block", rowHeader: true, cell: (rule) => <code>{rule.cidr}</code> },
            { header: "Label", cell: (rule) => rule.label },
          ]}
          actions={(rule) => (
            <DeleteButton label="Remove" what={`rule ${rule.cidr}`} onClick={() => setRules(rules.filter((r) => r !== rule))} />
          )}
        />
      )}
      <form className="inline-form" onSubmit={add} aria-label="New rule">
        <label>
          CIDR block
          <input value={cidr} onChange={(e) => setCidr(e.target.value)} placeholder="192.168.1.0/24" required spellCheck={false} />
        </label>
        <label>
          Label <small>(optional)</small>
          <input value={label} onChange={(e) => setLabel(e.target.value)} />
        </label>
        <div className="actions">
          <button type="submit" className="secondary">
            Add rule
          </button>
        </div>
      </form>
      <div className="inline-form">
        <label className="checkbox">
          <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Enforce the allowlist
        </label>
        <label>
          If a request's address cannot be evaluated
          <select value={onEvaluationError} onChange={(e) => setOnEvaluationError(e.target.value)}>
            <option value="DENY">deny it</option>
            <option value="ALLOW">allow it</option>
          </select>
        </label>
      </div>
      <div className="actions">
        <button disabled={action.busy} onClick={save}>
          Save allowlist
        </button>
        {saved.onEvaluationError !== undefined && (
          <button className="danger" disabled={action.busy} onClick={remove}>
            Remove allowlist
          </button>
        )}
      </div>
      <ActivityOutcome activity={action.activity} error={action.error} done="Allowlist saved." />
    </>
  );
}
