import { notFound } from "../errors.js";
import type { Queryable } from "../store/database.js";
import { Type } from "@sinclair/typebox";
import { Nullable } from "../schema/common.js";
import { ApiTimestamp, toApiTimestamp } from "../schema/timestamp.js";

interface PolicyRow {
  id: string;
  name: string;
  effect: string;
  condition: string | null;
  consensus: string | null;
  time: string | null;
  notes: string;
  created_at: Date;
  updated_at: Date;
}

export const PolicyRecord = Type.Object({
  policyId: Type.String(),
  policyName: Type.String(),
  effect: Type.String(),
  createdAt: ApiTimestamp,
  updatedAt: ApiTimestamp,
  notes: Type.String(),
  consensus: Nullable(Type.String()),
  condition: Nullable(Type.String()),
  time: Nullable(Type.String()),
});

/** A policy as the API returns it; absent expressions are null, as the API's nullable fields. */
function policyRecord(row: PolicyRow): Record<string, unknown> {
  return {
    policyId: row.id,
    policyName: row.name,
    effect: row.effect,
    createdAt: toApiTimestamp(row.created_at),
    updatedAt: toApiTimestamp(row.updated_at),
    notes: row.notes,
    consensus: row.consensus,
    condition: row.condition,
    time: row.time,
  };
}

export async function loadPolicyRecords(db: Queryable, organizationId: string): Promise<Record<string, unknown>[]> {
  return (await db.query<PolicyRow>("SELECT * FROM policies WHERE organization_id = $1 ORDER BY seq", [organizationId])).map(policyRecord);
}

export async function loadPolicyRecord(db: Queryable, organizationId: string, policyId: string): Promise<Record<string, unknown>> {
  const [row] = await db.query<PolicyRow>("SELECT * FROM policies WHERE id = $1 AND organization_id = $2", [policyId, organizationId]);
  if (!row) throw notFound(`policyId: no policy ${JSON.stringify(policyId)} in organization ${organizationId}`, "POLICY_NOT_FOUND");
  return policyRecord(row);
}
