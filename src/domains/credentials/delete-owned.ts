import { notFound } from "../../errors.js";
import type { Queryable } from "../../store/database.js";

/**
 * Deletes credentials of one user by id, refusing (and so failing the whole activity) if any id
 * is not a credential of that user in the organization.
 */
export async function deleteOwnedRows(
  tx: Queryable,
  table: "api_keys" | "authenticators" | "oauth_providers",
  what: string,
  owner: { organizationId: string; userId: string },
  ids: string[],
  field: string,
): Promise<string[]> {
  for (const [index, id] of ids.entries()) {
    const deleted = await tx.query(`DELETE FROM ${table} WHERE id = $1 AND user_id = $2 AND organization_id = $3 RETURNING id`, [
      id,
      owner.userId,
      owner.organizationId,
    ]);
    if (deleted.length === 0) {
      throw notFound(
        `${field}[${index}]: no ${what} ${JSON.stringify(id)} of user ${owner.userId} in organization ${owner.organizationId}`,
        "CREDENTIAL_NOT_FOUND",
      );
    }
  }
  return ids;
}

/** The same refusal as deleteOwnedRows, without deleting: every id names a credential of that user. */
export async function checkOwnedRows(
  db: Queryable,
  table: "api_keys" | "authenticators" | "oauth_providers",
  what: string,
  owner: { organizationId: string; userId: string },
  ids: string[],
  field: string,
): Promise<void> {
  const found = await db.query<{ id: string }>(
    `SELECT id FROM ${table} WHERE id = ANY($1::text[]) AND user_id = $2 AND organization_id = $3`,
    [ids, owner.userId, owner.organizationId],
  );
  const missing = ids.findIndex((id) => !found.some((row) => row.id === id));
  if (missing >= 0) {
    throw notFound(
      `${field}[${missing}]: no ${what} ${JSON.stringify(ids[missing])} of user ${owner.userId} in organization ${owner.organizationId}`,
      "CREDENTIAL_NOT_FOUND",
    );
  }
}
