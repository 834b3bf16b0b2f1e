import { alreadyExists, notFound, resourceExhausted } from "../../errors.js";
import type { OrganizationRow } from "../../records/organizations.js";
import type { Queryable } from "../../store/database.js";

/** Documented: 100 tags in an organization, 10 in a sub-organization. */
export function tagLimit(organization: OrganizationRow): number {
  return organization.parent_id ? 10 : 100;
}

export async function assertTagCapacity(tx: Queryable, organization: OrganizationRow, table: "user_tags"): Promise<void> {
  const [{ count } = { count: 0 }] = await tx.query<{ count: number }>(`SELECT count(*)::int AS count FROM ${table} WHERE organization_id = $1`, [organization.id]);
  if (count >= tagLimit(organization)) {
    throw resourceExhausted(`organization ${organization.id} already has the maximum of ${tagLimit(organization)} tags`, "REQUEST_INVALID");
  }
}

export async function assertTagNameFree(tx: Queryable, organizationId: string, name: string, field: string): Promise<void> {
  const [taken] = await tx.query<{ id: string }>("SELECT id FROM user_tags WHERE organization_id = $1 AND name = $2", [organizationId, name]);
  if (taken) throw alreadyExists(`${field}: a user tag named ${JSON.stringify(name)} already exists in organization ${organizationId} (tag ${taken.id})`);
}

export async function requireUserTag(tx: Queryable, organizationId: string, tagId: string, field: string): Promise<void> {
  const [tag] = await tx.query("SELECT id FROM user_tags WHERE id = $1 AND organization_id = $2", [tagId, organizationId]);
  if (!tag) throw notFound(`${field}: no user tag ${JSON.stringify(tagId)} in organization ${organizationId}`);
}
