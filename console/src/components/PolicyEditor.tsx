import { ACTIVITY_TYPES } from "../api/operations.generated.js";
import { submit, type Activity } from "../api/requests.js";
import { useSession } from "../session-context.js";
import { ActivityOutcome, useActivity } from "./ActivityOutcome.js";
import { ExpressionField } from "./ExpressionField.js";
import { checkPolicyField, type PolicyDraft } from "./policy-expression.js";

/** Whether a draft may be saved (or dry-run): a name, and condition and consensus the compiler accepts. */
export function draftProblems(draft: PolicyDraft) {
  const condition = checkPolicyField(draft.condition, "condition");
  const consensus = checkPolicyField(draft.consensus, "consensus");
  return { condition, consensus, valid: draft.policyName.trim() !== "" && !condition && !consensus };
}

/**
 * Creates a policy (create_policy) or changes one (update_policy; an emptied expression is cleared). Save stays disabled while the compiler finds
 * a problem; a refusal by the server (a taken name, …) is shown and nothing is stored; an activity that waits for
 * consensus is shown as such.
 */
export function PolicyEditor({
  draft,
  onChange,
  onSaved,
  onCancel,
}: {
  draft: PolicyDraft;
  onChange: (draft: PolicyDraft) => void;
  onSaved: (activity: Activity) => void;
  onCancel: () => void;
}) {
  const { connection, organizationId } = useSession();
  const action = useActivity();
  const problems = draftProblems(draft);
  const set = (change: Partial<PolicyDraft>) => onChange({ ...draft, ...change });

  const save = () =>
    void action.run(
      () =>
        draft.policyId
          ? submit(connection.client, "update_policy", organizationId, {
              policyId: draft.policyId,
              policyName: draft.policyName.trim(),
              policyEffect: draft.effect,
              policyCondition: draft.condition,
              policyConsensus: draft.consensus,
              policyNotes: draft.notes,
            })
          : submit(connection.client, "create_policy", organizationId, {
              policyName: draft.policyName.trim(),
              effect: draft.effect,
              ...(draft.condition.trim() ? { condition: draft.condition } : {}),
              ...(draft.consensus.trim() ? { consensus: draft.consensus } : {}),
              notes: draft.notes,
            }),
      onSaved,
    );

  return (
    <form
      className="policy-editor"
      aria-label={draft.policyId ? "Edit policy" : "New policy"}
      onSubmit={(e) => {
        e.preventDefault();
        if (problems.valid && !action.busy) save();
      }}
    >
      <div className="policy-editor-row">
        <label>
          Name
          <input value={draft.policyName} onChange={(e) => set({ policyName: e.target.value })} required maxLength={256} />
        </label>
        <label>
          Effect
          <select value={draft.effect} onChange={(e) => set({ effect: e.target.value })}>
            <option value="EFFECT_ALLOW">Allow</option>
            <option value="EFFECT_DENY">Deny</option>
          </select>
        </label>
      </div>
      <ExpressionField
        label="Condition"
        hint={`When the policy applies, e.g. activity.type == '${ACTIVITY_TYPES.create_wallet}'. Empty: always.`}
        value={draft.condition}
        problem={problems.condition}
        onChange={(condition) => set({ condition })}
      />
      <ExpressionField
        label="Consensus"
        hint="Who must approve, e.g. approvers.any(user, user.id == '…'). Empty: anyone."
        value={draft.consensus}
        problem={problems.consensus}
        onChange={(consensus) => set({ consensus })}
      />
      <label>
        Notes
        <textarea value={draft.notes} rows={2} maxLength={4096} onChange={(e) => set({ notes: e.target.value })} />
      </label>
      <ActivityOutcome activity={action.activity} error={action.error} />
      <div className="actions">
        <button type="submit" disabled={!problems.valid || action.busy}>
          {action.busy ? "Saving…" : "Save"}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
