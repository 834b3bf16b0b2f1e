import { useEffect, useRef, useState } from "react";
import { query, submit, toDate, type Activity } from "../api/requests.js";
import { ActivityOutcome, useActivity } from "../components/ActivityOutcome.js";
import { CardList } from "../components/CardList.js";
import { Section } from "../components/common.js";
import { DryRunPanel } from "../components/DryRunPanel.js";
import { describeEffect, type Policy, type PolicyDraft } from "../components/policy-expression.js";
import { draftProblems, PolicyEditor } from "../components/PolicyEditor.js";
import { IdLegend } from "../components/names.js";
import { useLoader } from "../components/use-loader.js";
import { VelocityControls } from "../components/VelocityControls.js";
import { useSession } from "../session-context.js";

const NEW_POLICY: PolicyDraft = { policyName: "", effect: "EFFECT_ALLOW", condition: "", consensus: "", notes: "" };

const draftOf = (policy: Policy): PolicyDraft => ({
  policyId: policy.policyId,
  policyName: policy.policyName,
  effect: policy.effect,
  condition: policy.condition ?? "",
  consensus: policy.consensus ?? "",
  notes: policy.notes,
  ...(policy.time ? { time: policy.time } : {}),
});

/** `dryrun?activityId=…` (the activity detail's link) → the activity to dry-run. */
function dryRunTarget(id: string | undefined): { activityId?: string } | undefined {
  if (!id?.startsWith("dryrun")) return undefined;
  const activityId = new URLSearchParams(id.slice("dryrun".length).replace(/^\?/, "")).get("activityId");
  return activityId ? { activityId } : {};
}

/**
 * The organization's policies: list, create, edit, delete, each an activity the policies decide. The editor checks
 * condition and consensus with the server's own compiler as the user types; the dry-run panel shows what the
 * current policies, or the current policies with the draft, would decide for an activity.
 */
export function Policies({ id }: { id?: string }) {
  const { connection, organizationId } = useSession();
  const policies = useLoader(
    () => query<{ policies: Policy[] }>(connection.client, "list_policies", { organizationId }).then((r) => r.policies),
    [organizationId],
  );
  const [draft, setDraft] = useState<PolicyDraft>();
  /** The last change that completed, confirmed above the list (the card or editor that made it is gone). */
  const [saved, setSaved] = useState<{ activity: Activity; done: string }>();
  const dryRun = dryRunTarget(id);
  const dryRunSection = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (dryRun) dryRunSection.current?.scrollIntoView();
  }, [id]);

  const edit = (next: PolicyDraft) => {
    setSaved(undefined);
    setDraft(next);
  };

  return (
    <>
      <Section
        title="Current policies"
        actions={
          <button className="secondary" onClick={() => edit(NEW_POLICY)} disabled={draft !== undefined && !draft.policyId}>
            New policy
          </button>
        }
      >
        <ActivityOutcome activity={saved?.activity} done={saved?.done} />
        <CardList
          loaded={policies}
          empty="No policy: only the root quorum and users' own credentials act."
          itemKey={(policy) => policy.policyId}
          label="Policies"
        >
          {(policy) => (
            <PolicyCard
              policy={policy}
              editing={draft?.policyId === policy.policyId}
              onEdit={() => edit(draftOf(policy))}
              onDeleted={(activity) => {
                if (draft?.policyId === policy.policyId) setDraft(undefined);
                setSaved({ activity, done: `Policy “${policy.policyName}” deleted.` });
                policies.reload();
              }}
            />
          )}
        </CardList>
      </Section>
      {draft && (
        <Section title={draft.policyId ? "Edit policy" : "New policy"}>
          <PolicyEditor
            key={draft.policyId ?? "new"}
            draft={draft}
            onChange={setDraft}
            onCancel={() => setDraft(undefined)}
            onSaved={(activity) => {
              setSaved({ activity, done: `Policy “${draft.policyName.trim()}” saved.` });
              setDraft(undefined);
              policies.reload();
            }}
          />
        </Section>
      )}
      <Section title="Velocity controls">
        <VelocityControls />
      </Section>
      <div ref={dryRunSection}>
        <Section title="Dry run">
          <DryRunPanel
            policies={policies.data ?? []}
            {...(draft ? { draft } : {})}
            draftValid={draft ? draftProblems(draft).valid : true}
            {...(dryRun?.activityId ? { activityId: dryRun.activityId } : {})}
          />
        </Section>
      </div>
    </>
  );
}

function PolicyCard({
  policy,
  editing,
  onEdit,
  onDeleted,
}: {
  policy: Policy;
  editing: boolean;
  onEdit: () => void;
  onDeleted: (activity: Activity) => void;
}) {
  const { connection, organizationId } = useSession();
  const [confirming, setConfirming] = useState(false);
  const action = useActivity();

  async function remove() {
    await action.run(() => submit(connection.client, "delete_policy", organizationId, { policyId: policy.policyId }), onDeleted);
    setConfirming(false);
  }

  return (
    <article className="card policy" aria-label={policy.policyName}>
      <h3>
        {policy.policyName}{" "}
        <span className={`effect effect-${describeEffect(policy.effect).toLowerCase()}`}>{describeEffect(policy.effect)}</span>
      </h3>
      <dl className="facts">
        <dt>Condition</dt>
        <dd>
          {policy.condition ? (
            <>
              <code>{policy.condition}</code>
              <IdLegend text={policy.condition} />
            </>
          ) : (
            <span className="muted">always</span>
          )}
        </dd>
        <dt>Consensus</dt>
        <dd>
          {policy.consensus ? (
            <>
              <code>{policy.consensus}</code>
              <IdLegend text={policy.consensus} />
            </>
          ) : (
            <span className="muted">anyone</span>
          )}
        </dd>
        {policy.time && (
          <>
            <dt>Time</dt>
            <dd>
              <code>{policy.time}</code>
            </dd>
          </>
        )}
        {policy.notes && (
          <>
            <dt>Notes</dt>
            <dd>{policy.notes}</dd>
          </>
        )}
        <dt>Updated</dt>
        <dd>{toDate(policy.updatedAt).toLocaleString()}</dd>
      </dl>
      <ActivityOutcome activity={action.activity} error={action.error} />
      <div className="actions">
        <button className="secondary" onClick={onEdit} disabled={editing}>
          {editing ? "Editing" : "Edit"}
        </button>
        {confirming ? (
          <>
            <button className="danger" onClick={() => void remove()} disabled={action.busy}>
              Delete “{policy.policyName}”
            </button>
            <button className="secondary" onClick={() => setConfirming(false)} disabled={action.busy}>
              Keep it
            </button>
          </>
        ) : (
          <button className="secondary" onClick={() => setConfirming(true)}>
            Delete
          </button>
        )}
      </div>
    </article>
  );
}
