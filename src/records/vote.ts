import { Type } from "@sinclair/typebox";
import { ApiTimestamp, toApiTimestamp } from "../schema/timestamp.js";
import type { Queryable } from "../store/database.js";
import { UserRecord } from "./user.js";

export type VoteSelection = "VOTE_SELECTION_APPROVED" | "VOTE_SELECTION_REJECTED";

export interface VoteRow {
  id: string;
  activity_id: string;
  user_id: string;
  user_snapshot: Record<string, unknown>;
  selection: string;
  message: string;
  public_key: string;
  signature: string;
  scheme: string;
  created_at: Date;
}

export const VoteRecord = Type.Object({
  id: Type.String(),
  userId: Type.String(),
  /** The voter as they were when they voted. */
  user: UserRecord,
  activityId: Type.String(),
  selection: Type.String(),
  message: Type.String(),
  publicKey: Type.String(),
  signature: Type.String(),
  scheme: Type.String(),
  createdAt: ApiTimestamp,
});

export function voteRecord(v: VoteRow) {
  return {
    id: v.id,
    userId: v.user_id,
    user: v.user_snapshot,
    activityId: v.activity_id,
    selection: v.selection,
    message: v.message,
    publicKey: v.public_key,
    signature: v.signature,
    scheme: v.scheme,
    createdAt: toApiTimestamp(v.created_at),
  };
}

export async function loadVotes(db: Queryable, activityIds: string[]): Promise<Map<string, VoteRow[]>> {
  const byActivity = new Map<string, VoteRow[]>();
  if (activityIds.length === 0) return byActivity;
  const rows = await db.query<VoteRow>("SELECT * FROM votes WHERE activity_id = ANY($1::text[]) ORDER BY created_at, id", [activityIds]);
  for (const row of rows) {
    const list = byActivity.get(row.activity_id);
    if (list) list.push(row);
    else byActivity.set(row.activity_id, [row]);
  }
  return byActivity;
}
