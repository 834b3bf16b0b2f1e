import { Type } from "@sinclair/typebox";
import { notFound } from "../../errors.js";
import type { Queryable } from "../../store/database.js";

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
