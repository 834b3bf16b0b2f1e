import { useEffect, useState } from "react";
import { ACTIVITY_TYPES } from "../api/operations.generated.js";
import { messageOf } from "../api/requests.js";
import { href } from "../routes.js";
import { useSession } from "../session-context.js";
import { useNames } from "./names.js";
import { ErrorNote } from "./common.js";
import { DataTable } from "./DataTable.js";
import type { Policy, PolicyDraft } from "./policy-expression.js";
import { operatorSymbol } from "./VelocityControls.js";

/** The Policies page's dry-run panel, set to evaluate a past activity. */
export const dryRunHref = (activityId: string) => `${href("policies")}/dryrun?activityId=${encodeURIComponent(activityId)}`;

interface DryRunPolicy {
  policyName: string;
  effect: string;
  condition?: string;
  consensus?: string;
  time?: string;
  notes?: string;
}

/** The answer of dry_run_activity (src/pipeline/dry-run/answer.ts). */
interface DryRunAnswer {
  outcome: string;
  reason: string;
  byRootQuorum?: boolean;
  activityType: string;
  /** A drafted policy's id is draft:<index>, and draftIndex its index in the policies sent. */
  policyEvaluations: { policyId: string; draftIndex?: number; policyName: string; outcome: string }[];
  /** Each velocity control as this activity sees it: the aggregate so far and what the activity would add. */
  controls: {
    velocityControlId: string;
    identifier: string;
    current: string;
    adds: string;
    threshold: string;
    operator: string;
    holds: boolean;
  }[];
}

type Source = "draft" | "past";
type PolicySet = "current" | "with-draft";

function parseParameters(text: string): { value?: Record<string, unknown>; error?: string } {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null || Array.isArray(value)) return { error: "Parameters must be a JSON object ({…})." };
    return { value: value as Record<string, unknown> };
  } catch (e) {
    return { error: `Not JSON: ${messageOf(e)}` };
  }
}

/** The organization's policies with the draft added (a new policy) or in place of the one it changes, and where it is. */
function policiesWithDraft(policies: Policy[], draft: PolicyDraft): { sent: DryRunPolicy[]; draftIndex: number } {
  const asDryRun = (
    p: Pick<Policy, "policyName" | "effect" | "notes"> & Partial<Record<"condition" | "consensus" | "time", string | null>>,
  ) => ({
    policyName: p.policyName.trim(),
    effect: p.effect,
    ...(p.condition?.trim() ? { condition: p.condition } : {}),
    ...(p.consensus?.trim() ? { consensus: p.consensus } : {}),
    ...(p.time?.trim() ? { time: p.time } : {}),
    notes: p.notes,
  });
  const replacing = policies.findIndex((p) => p.policyId === draft.policyId);
  const sent = policies.map((p, i) => asDryRun(i === replacing ? draft : p));
  if (replacing >= 0) return { sent, draftIndex: replacing };
  return { sent: [...sent, asDryRun(draft)], draftIndex: sent.length };
}

const describeOutcome = (outcome: string) =>
  outcome
    .replace(/^(POLICY_)?OUTCOME_/, "")
    .toLowerCase()
    .replace(/_/g, " ");

/**
 * What the policies would decide for an activity, executing nothing (POST /strongroom/v1/query/dry_run_activity,
 * stamped like any query): a drafted activity — requested by whoever is signed in, or as any member of the
 * organization (asUserId) — or a past one, against the current policies or the current policies with the editor's draft.
 */
export function DryRunPanel({
  policies,
  draft,
  draftValid,
  activityId: initialActivityId,
}: {
  policies: Policy[];
  draft?: PolicyDraft;
  draftValid: boolean;
  activityId?: string;
}) {
  const { connection, organizationId } = useSession();
  const [source, setSource] = useState<Source>(initialActivityId ? "past" : "draft");
  const [type, setType] = useState<string>(ACTIVITY_TYPES.create_wallet);
  const [parametersText, setParametersText] = useState('{\n  "walletName": "Treasury",\n  "accounts": []\n}');
  const [activityId, setActivityId] = useState(initialActivityId ?? "");
  const [policySet, setPolicySet] = useState<PolicySet>("with-draft");
  const [asUserId, setAsUserId] = useState("");
  const names = useNames();
  const members = [...names.entries()].filter(([, name]) => !/^(tag|wallet|private key) /.test(name));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [answer, setAnswer] = useState<{ result: DryRunAnswer; draftIndex?: number }>();

  useEffect(() => {
    if (!initialActivityId) return;
    setSource("past");
    setActivityId(initialActivityId);
  }, [initialActivityId]);

  const parameters = parseParameters(parametersText);
  const useDraft = policySet === "with-draft" && draft !== undefined;
  const ready =
    (source === "draft" ? type.trim() !== "" && !parameters.error : activityId.trim() !== "") && (!useDraft || draftValid) && !busy;

  async function run() {
    setBusy(true);
    setError(undefined);
    setAnswer(undefined);
    const withDraft = useDraft ? policiesWithDraft(policies, draft) : undefined;
    try {
      const result = await connection.client.request<Record<string, unknown>, DryRunAnswer>("/strongroom/v1/query/dry_run_activity", {
        organizationId,
        ...(source === "draft" ? { activity: { type: type.trim(), parameters: parameters.value } } : { activityId: activityId.trim() }),
        ...(source === "draft" && asUserId ? { asUserId } : {}),
        ...(withDraft ? { policies: withDraft.sent } : {}),
      });
      setAnswer({ result, ...(withDraft ? { draftIndex: withDraft.draftIndex } : {}) });
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form
      className="dry-run"
      aria-label="Dry run"
      onSubmit={(e) => {
        e.preventDefault();
        if (ready) void run();
      }}
    >
      <fieldset className="choice">
        <legend>Activity</legend>
        <label>
          <input type="radio" name="dry-run-source" checked={source === "draft"} onChange={() => setSource("draft")} />
          Draft an activity
        </label>
        <label>
          <input type="radio" name="dry-run-source" checked={source === "past"} onChange={() => setSource("past")} />A past activity
        </label>
      </fieldset>
      {source === "draft" ? (
        <>
          <label>
            Activity type
            <input value={type} onChange={(e) => setType(e.target.value)} spellCheck={false} autoCapitalize="off" />
          </label>
          <label>
            Parameters (JSON)
            <textarea
              className="code-input"
              rows={5}
              value={parametersText}
              spellCheck={false}
              aria-invalid={parameters.error ? true : undefined}
              onChange={(e) => setParametersText(e.target.value)}
            />
          </label>
          <ErrorNote error={parameters.error} />
          <label>
            Requested by
            <select value={asUserId} onChange={(e) => setAsUserId(e.target.value)}>
              <option value="">me ({names.get(connection.userId) ?? "signed in"})</option>
              {members
                .filter(([id]) => id !== connection.userId)
                .map(([id, name]) => (
                  <option key={id} value={id}>
                    {name}
                  </option>
                ))}
            </select>
          </label>
        </>
      ) : (
        <label>
          Activity ID
          <input value={activityId} onChange={(e) => setActivityId(e.target.value)} spellCheck={false} autoCapitalize="off" />
        </label>
      )}
      <fieldset className="choice">
        <legend>Policies</legend>
        <label>
          <input type="radio" name="dry-run-policies" checked={policySet === "current"} onChange={() => setPolicySet("current")} />
          Current policies
        </label>
        <label>
          <input type="radio" name="dry-run-policies" checked={policySet === "with-draft"} onChange={() => setPolicySet("with-draft")} />
          Current policies with my draft
        </label>
      </fieldset>
      {policySet === "with-draft" && !draft && (
        <p className="muted">No draft open: the current policies are used. Add or edit a policy to draft one.</p>
      )}
      {useDraft && !draftValid && <p className="error">The draft has a problem (see the editor): fix it to dry-run with it.</p>}
      <div className="actions">
        <button type="submit" disabled={!ready}>
          {busy ? "Evaluating…" : "Dry run"}
        </button>
        <span className="muted">Executes nothing.</span>
      </div>
      <ErrorNote error={error} />
      {answer && (
        <section className="dry-run-result" aria-label="Dry-run result">
          <p>
            Outcome:{" "}
            <strong className={`outcome outcome-${answer.result.outcome.toLowerCase()}`} data-testid="dry-run-outcome">
              {answer.result.outcome}
            </strong>
            {answer.draftIndex !== undefined ? " (current policies with the draft)" : " (current policies)"}
          </p>
          <p data-testid="dry-run-reason">{answer.result.reason}</p>
          {answer.result.byRootQuorum && <p className="muted">The root quorum's approval suffices: no policy was consulted.</p>}
          {answer.result.policyEvaluations.length > 0 && (
            <DataTable
              rows={answer.result.policyEvaluations}
              rowKey={(evaluation) => evaluation.policyId}
              columns={[
                {
                  header: "Policy",
                  cell: (evaluation) => (
                    <>
                      {evaluation.policyName || evaluation.policyId}
                      {evaluation.draftIndex !== undefined && evaluation.draftIndex === answer.draftIndex && (
                        <span className="muted"> (your draft)</span>
                      )}
                    </>
                  ),
                },
                { header: "Outcome", cell: (evaluation) => describeOutcome(evaluation.outcome) },
              ]}
            />
          )}
          {answer.result.controls.length > 0 && (
            <DataTable
              label="Velocity controls"
              rows={answer.result.controls}
              rowKey={(control) => control.velocityControlId}
              columns={[
                { header: "Control", cell: (control) => <code>controls.{control.identifier}</code> },
                { header: "So far", cell: (control) => control.current },
                { header: "This activity adds", cell: (control) => control.adds },
                { header: "Limit", cell: (control) => `${operatorSymbol(control.operator)} ${control.threshold}` },
                { header: "Holds", cell: (control) => (control.holds ? "yes" : "no") },
              ]}
            />
          )}
        </section>
      )}
    </form>
  );
}
