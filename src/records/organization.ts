import { Type } from "@sinclair/typebox";
import { notFound } from "../errors.js";
import type { Queryable } from "../store/database.js";

export interface OrganizationRow {
  id: string;
  name: string;
  parent_id: string | null;
  root_quorum_threshold: number;
  features: Array<{ name: string; value: string }>;
  created_at: Date;
  updated_at: Date;
}

export async function findOrganization(db: Queryable, id: string): Promise<OrganizationRow | undefined> {
  const [row] = await db.query<OrganizationRow>("SELECT * FROM organizations WHERE id = $1", [id]);
  return row;
}

export async function requireOrganization(db: Queryable, id: string): Promise<OrganizationRow> {
  const row = await findOrganization(db, id);
  if (!row) throw notFound(`no organization found with id ${JSON.stringify(id)}`, "ORGANIZATION_NOT_FOUND");
  return row;
}

export const QuorumRecord = Type.Object({ threshold: Type.Integer(), userIds: Type.Array(Type.String()) });

export async function rootQuorum(db: Queryable, organization: OrganizationRow): Promise<{ threshold: number; userIds: string[] }> {
  const roots = await db.query<{ id: string }>("SELECT id FROM users WHERE organization_id = $1 AND is_root ORDER BY created_at, id", [
    organization.id,
  ]);
  return { threshold: organization.root_quorum_threshold, userIds: roots.map((r) => r.id) };
}

/**
 * Serializes, per organization, the activities that count rows against a documented limit
 * (users, wallets, private keys, tags, invitations). Without it two transactions — from two
 * processes of a cluster, say — could each count one free place and both take it.
 * FOR NO KEY UPDATE does not conflict with the KEY SHARE locks that foreign-key inserts take,
 * so other writes in the organization are not held up; only concurrent limit checks wait.
 */
export async function lockOrganizationForLimits(tx: Queryable, organizationId: string): Promise<void> {
  await tx.query("SELECT id FROM organizations WHERE id = $1 FOR NO KEY UPDATE", [organizationId]);
}
