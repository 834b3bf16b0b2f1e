import { Type } from "@sinclair/typebox";
import { Nullable } from "../schema/common.js";
import { ApiTimestamp, toApiTimestamp } from "../schema/timestamp.js";
import { loadVotes, VoteRecord, voteRecord, type VoteRow } from "./vote.js";
import type { Queryable } from "../store/database.js";
import type { ErrorBody } from "../errors.js";

export interface ActivityRow {
  id: string;
  organization_id: string;
  type: string;
  status: string;
  fingerprint: string;
  intent: Record<string, unknown>;
  result: Record<string, unknown>;
  failure: ErrorBody | null;
  generate_app_proofs: boolean;
  app_proofs: unknown[];
  created_at: Date;
  updated_at: Date;
  /** The full parameters, sealed, while an activity holding bearer secrets waits (secret-fields.ts). */
  sealed_secret_params?: string | null;
}

/** Intents and results are keyed by the activity's intent/result key; each definition declares the shape under its key. */
const Keyed = () => Type.Record(Type.String(), Type.Unknown());

export const AppProofRecord = Type.Object({
  scheme: Type.String(),
  publicKey: Type.String(),
  proofPayload: Type.String(),
  signature: Type.String(),
});

/** The error body a failed activity records. */
export const ActivityFailure = Type.Object({
  code: Type.Integer(),
  message: Type.String(),
  details: Type.Array(Type.Record(Type.String(), Type.Unknown())),
});

export const ActivityRecord = Type.Object({
  id: Type.String(),
  organizationId: Type.String(),
  status: Type.String(),
  type: Type.String(),
  intent: Keyed(),
  result: Keyed(),
  votes: Type.Array(VoteRecord),
  fingerprint: Type.String(),
  canApprove: Type.Boolean(),
  canReject: Type.Boolean(),
  createdAt: ApiTimestamp,
  updatedAt: ApiTimestamp,
  failure: Nullable(ActivityFailure),
  appProofs: Type.Optional(Type.Array(AppProofRecord)),
});

/** What submitting, approving or rejecting an activity, and get_activity, answer. */
export const ActivityResponse = Type.Object({ activity: ActivityRecord });

export interface ActivityRecord {
  id: string;
  organizationId: string;
  status: string;
  type: string;
  intent: Record<string, unknown>;
  result: Record<string, unknown>;
  votes: unknown[];
  fingerprint: string;
  canApprove: boolean;
  canReject: boolean;
  createdAt: ApiTimestamp;
  updatedAt: ApiTimestamp;
  failure: ErrorBody | null;
  appProofs?: unknown[];
}

/**
 * The activity as the API returns it. `canApprove`/`canReject` are for the viewer: only an activity waiting
 * for consensus or authenticators can be voted on, by someone who has not voted yet — and one waiting for
 * authenticators may also be approved by its requester, who proves their MFA steps that way.
 */
export function activityRecord(row: ActivityRow, votes: VoteRow[], viewerUserId?: string): ActivityRecord {
  const waiting = row.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED" || row.status === "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED";
  const open = waiting && !votes.some((v) => v.user_id === viewerUserId);
  const proving = row.status === "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED" && votes[0]?.user_id === viewerUserId;
  return {
    id: row.id,
    organizationId: row.organization_id,
    status: row.status,
    type: row.type,
    intent: row.intent,
    result: row.result,
    votes: votes.map(voteRecord),
    fingerprint: row.fingerprint,
    canApprove: open || proving,
    canReject: open,
    createdAt: toApiTimestamp(row.created_at),
    updatedAt: toApiTimestamp(row.updated_at),
    failure: row.failure,
    ...(row.app_proofs?.length ? { appProofs: row.app_proofs } : {}),
  };
}

export async function loadActivityRecord(
  db: Queryable,
  where: "id" | "fingerprint",
  value: string,
  viewerUserId?: string,
): Promise<ActivityRecord | undefined> {
  const [row] = await db.query<ActivityRow>(`SELECT * FROM activities WHERE ${where === "id" ? "id" : "fingerprint"} = $1`, [value]);
  if (!row) return undefined;
  const votes = await loadVotes(db, [row.id]);
  return activityRecord(row, votes.get(row.id) ?? [], viewerUserId);
}
