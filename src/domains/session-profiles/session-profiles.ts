import { Type } from "@sinclair/typebox";
import { invalidField, notFound } from "../../errors.js";
import { ApiTimestamp, toApiTimestamp } from "../../schema/timestamp.js";
import type { Queryable } from "../../store/database.js";
import type { OrganizationRow } from "../../records/organization.js";

export interface SessionProfileRow {
  id: string;
  organization_id: string;
  name: string;
  scope: string;
  expiration_seconds: string | null;
  notes: string;
  created_at: Date;
}

export const SessionProfileRecord = Type.Object({
  sessionProfileId: Type.String(),
  sessionProfileName: Type.String(),
  scope: Type.String(),
  expirationSeconds: Type.Optional(Type.String()),
  notes: Type.Optional(Type.String()),
  createdAt: ApiTimestamp,
  updatedAt: ApiTimestamp,
});

/** A profile as the API shows it; immutable, so updatedAt is createdAt. */
export function sessionProfileRecord(row: SessionProfileRow): Record<string, unknown> {
  const at = toApiTimestamp(row.created_at);
  return {
    sessionProfileId: row.id,
    sessionProfileName: row.name,
    scope: row.scope,
    ...(row.expiration_seconds === null ? {} : { expirationSeconds: row.expiration_seconds }),
    notes: row.notes,
    createdAt: at,
    updatedAt: at,
  };
}

/** The organizations whose profiles an organization sees: its own and, documented, its parent's. */
const visibleTo = (organization: Pick<OrganizationRow, "id" | "parent_id">) => [organization.id, organization.parent_id ?? organization.id];

export async function listSessionProfiles(
  db: Queryable,
  organization: Pick<OrganizationRow, "id" | "parent_id">,
): Promise<SessionProfileRow[]> {
  return db.query<SessionProfileRow>(
    "SELECT * FROM session_profiles WHERE organization_id = ANY($1::text[]) ORDER BY (organization_id = $2) DESC, seq",
    [visibleTo(organization), organization.id],
  );
}

export async function findSessionProfile(
  db: Queryable,
  organization: Pick<OrganizationRow, "id" | "parent_id">,
  sessionProfileId: string,
): Promise<SessionProfileRow | undefined> {
  const [row] = await db.query<SessionProfileRow>("SELECT * FROM session_profiles WHERE id = $1 AND organization_id = ANY($2::text[])", [
    sessionProfileId,
    visibleTo(organization),
  ]);
  return row;
}

const notVisible = (organization: Pick<OrganizationRow, "id">, sessionProfileId: string) =>
  `no session profile ${JSON.stringify(sessionProfileId)} in organization ${organization.id} or its parent`;

/** A profile of the organization or its parent; 404 naming the id otherwise. */
export async function requireSessionProfile(
  db: Queryable,
  organization: Pick<OrganizationRow, "id" | "parent_id">,
  sessionProfileId: string,
): Promise<SessionProfileRow> {
  const row = await findSessionProfile(db, organization, sessionProfileId);
  if (!row) throw notFound(`sessionProfileId: ${notVisible(organization, sessionProfileId)}`);
  return row;
}

/**
 * A login's sessionProfileId: a profile the organization sees, else 400 naming the field (bad input, like any
 * other reference in a request). None when the login names none.
 */
export async function checkLoginSessionProfile(
  db: Queryable,
  organization: Pick<OrganizationRow, "id" | "parent_id">,
  sessionProfileId: string | undefined,
): Promise<SessionProfileRow | undefined> {
  if (sessionProfileId === undefined || sessionProfileId === "") return undefined;
  const row = await findSessionProfile(db, organization, sessionProfileId);
  if (!row) throw invalidField("sessionProfileId", notVisible(organization, sessionProfileId));
  return row;
}
