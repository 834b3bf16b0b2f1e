import { alreadyExists, notFound, resourceExhausted } from "../errors.js";
import { type OrganizationRow, lockOrganizationForLimits } from "../records/organization.js";
import type { Queryable } from "../store/database.js";

/** The two kinds of tag, each in its own table. */
export type TagTable = "user_tags" | "private_key_tags";

const KIND: Record<TagTable, string> = { user_tags: "user tag", private_key_tags: "private key tag" };

/** Documented: 100 tags in an organization, 10 in a sub-organization (user and private key tags together). */
export function tagLimit(organization: OrganizationRow): number {
  return organization.parent_id ? 10 : 100;
}

export async function assertTagCapacity(tx: Queryable, organization: OrganizationRow): Promise<void> {
  await lockOrganizationForLimits(tx, organization.id);
  const [{ count } = { count: 0 }] = await tx.query<{ count: number }>(
    "SELECT (SELECT count(*) FROM user_tags WHERE organization_id = $1) + (SELECT count(*) FROM private_key_tags WHERE organization_id = $1) AS count",
    [organization.id],
  );
  if (Number(count) >= tagLimit(organization)) {
    throw resourceExhausted(`organization ${organization.id} already has the maximum of ${tagLimit(organization)} tags`, "REQUEST_INVALID");
  }
}

export async function assertTagNameFree(
  tx: Queryable,
  table: TagTable,
  organizationId: string,
  name: string,
  field: string,
): Promise<void> {
  const [taken] = await tx.query<{ id: string }>(`SELECT id FROM ${table} WHERE organization_id = $1 AND name = $2`, [
    organizationId,
    name,
  ]);
  if (taken)
    throw alreadyExists(
      `${field}: a ${KIND[table]} named ${JSON.stringify(name)} already exists in organization ${organizationId} (tag ${taken.id})`,
    );
}

export async function requireTag(
  tx: Queryable,
  table: TagTable,
  organizationId: string,
  tagId: string,
  field: string,
): Promise<{ id: string; name: string }> {
  const [tag] = await tx.query<{ id: string; name: string }>(`SELECT id, name FROM ${table} WHERE id = $1 AND organization_id = $2`, [
    tagId,
    organizationId,
  ]);
  if (!tag) throw notFound(`${field}: no ${KIND[table]} ${JSON.stringify(tagId)} in organization ${organizationId}`);
  return tag;
}

export const requireUserTag = (tx: Queryable, organizationId: string, tagId: string, field: string) =>
  requireTag(tx, "user_tags", organizationId, tagId, field);
