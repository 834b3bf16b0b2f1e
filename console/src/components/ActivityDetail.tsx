import { APPROVAL_WINDOW_MS } from "../../../src/domains/activities/approval-window.js";
import { describeStatus, describeType, query, toDate, type Activity } from "../api/requests.js";
import { useSession } from "../session-context.js";
import { ErrorNote, Json } from "./common.js";
import { describeActivity } from "./activity-sentence.js";
import { dryRunHref } from "./DryRunPanel.js";
import { IdLegend, useNames } from "./names.js";
import { useLoader } from "./use-loader.js";

interface PolicyEvaluation {
  id: string;
  voteId: string;
  policyEvaluations: { policyId: string; outcome: string }[];
}

interface StoredPolicy {
  policyId: string;
  policyName: string;
  condition: string | null;
  consensus: string | null;
}

/** Why a policy applied as it did: its condition and consensus, as stored now (the policy may have changed since). */
function PolicyWhy({ policy }: { policy?: StoredPolicy }) {
  if (!policy || (!policy.condition && !policy.consensus)) return null;
  return (
    <dl className="facts policy-why">
      {policy.condition && (
        <>
          <dt>when</dt>
          <dd>
            <code>{policy.condition}</code>
            <IdLegend text={policy.condition} />
          </dd>
        </>
      )}
      {policy.consensus && (
        <>
          <dt>approved by</dt>
          <dd>
            <code>{policy.consensus}</code>
            <IdLegend text={policy.consensus} />
          </dd>
        </>
      )}
    </dl>
  );
}

/** What an activity does and how it was decided: intent, votes, policy evaluations, result or failure, app proofs. */
export function ActivityDetail({ activity }: { activity: Activity }) {
  const { connection, organizationId } = useSession();
  const evaluations = useLoader(
    () =>
      query<{ policyEvaluations: PolicyEvaluation[] }>(connection.client, "get_policy_evaluations", {
        organizationId,
        activityId: activity.id,
      }).then((r) => r.policyEvaluations),
    [activity.id, activity.updatedAt.seconds],
  );
  const policies = useLoader(
    () =>
      query<{ policies: StoredPolicy[] }>(connection.client, "list_policies", { organizationId }).then(
        (r) => new Map(r.policies.map((p) => [p.policyId, p])),
      ),
    [organizationId],
  );
  const names = useNames();
  const firstVote = activity.votes[0];
  const waiting = activity.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED";

  return (
    <div className="activity-detail">
      <dl className="facts">
        <dt>Type</dt>
        <dd>
          {describeType(activity.type)} <code>{activity.type}</code>
        </dd>
        <dt>Status</dt>
        <dd className={`status status-${activity.status.replace(/^ACTIVITY_STATUS_/, "").toLowerCase()}`}>
          {describeStatus(activity.status)}
        </dd>
        <dt>Requested</dt>
        <dd>
          {toDate(activity.createdAt).toLocaleString()}
          {firstVote ? ` by ${names.get(firstVote.userId) ?? firstVote.user?.userName ?? firstVote.userId}` : ""}
        </dd>
        {waiting && firstVote && (
          <>
            <dt>Approvals lapse</dt>
            <dd>{new Date(toDate(firstVote.createdAt).getTime() + APPROVAL_WINDOW_MS).toLocaleString()}</dd>
          </>
        )}
        <dt>ID</dt>
        <dd>
          <code>{activity.id}</code>
        </dd>
      </dl>
      <h3>What it does</h3>
      <p className="sentence">{describeActivity(activity, names)}</p>
      <details>
        <summary>The request as JSON</summary>
        <Json value={activity.intent} />
      </details>
      <h3>Votes ({activity.votes.length})</h3>
      <ul className="votes">
        {activity.votes.map((vote) => (
          <li key={vote.id}>
            <strong>{vote.selection === "VOTE_SELECTION_APPROVED" ? "Approved" : "Rejected"}</strong> by{" "}
            {names.get(vote.userId) ?? vote.user?.userName ?? vote.userId} at {toDate(vote.createdAt).toLocaleString()}{" "}
            <small>({vote.scheme.replace(/^SIGNATURE_SCHEME_/, "")})</small>
            <details>
              <summary>Stamp</summary>
              <dl className="facts">
                <dt>Public key</dt>
                <dd>
                  <code>{vote.publicKey}</code>
                </dd>
                <dt>Signature</dt>
                <dd>
                  <code>{vote.signature}</code>
                </dd>
              </dl>
            </details>
          </li>
        ))}
      </ul>
      <h3>Policy evaluations</h3>
      <ErrorNote error={evaluations.error} />
      {evaluations.data?.length === 0 && <p className="muted">No policy evaluation recorded (the root quorum decided).</p>}
      {evaluations.data?.map((evaluation) => (
        <ul key={evaluation.id} className="evaluations">
          {evaluation.policyEvaluations.map((outcome) => (
            <li key={outcome.policyId}>
              {policies.data?.get(outcome.policyId)?.policyName ?? outcome.policyId}:{" "}
              <strong>{outcome.outcome.replace(/^(POLICY_)?OUTCOME_/, "").toLowerCase()}</strong>
              <PolicyWhy policy={policies.data?.get(outcome.policyId)} />
            </li>
          ))}
        </ul>
      ))}
      <p>
        <a href={dryRunHref(activity.id)}>Dry run against drafted policies</a>
      </p>
      {activity.failure && (
        <>
          <h3>Failure</h3>
          <p className="error">{activity.failure.message}</p>
        </>
      )}
      {Object.keys(activity.result ?? {}).length > 0 && (
        <>
          <h3>Result</h3>
          <Json value={activity.result} />
        </>
      )}
      {activity.appProofs && activity.appProofs.length > 0 && (
        <>
          <h3>App proofs</h3>
          <Json value={activity.appProofs} />
        </>
      )}
    </div>
  );
}
