import { notFound } from "../errors.js";
import type { Queryable } from "../store/database.js";
import { Type, type Static } from "@sinclair/typebox";
import { ApiTimestamp, toApiTimestamp } from "../schema/timestamp.js";
import { ApiKeyRecord, apiKeyRecord, type ApiKeyRow } from "./api-key.js";
import { AuthenticatorRecord, authenticatorRecord, type AuthenticatorRow } from "./authenticator.js";
import { MfaPolicyRecord, mfaPolicyRecord, type MfaPolicyRow } from "./mfa-policy.js";
import { OauthProviderRecord, oauthProviderRecord, type OauthProviderRow } from "./oauth-provider.js";

export interface UserRow {
  id: string;
  organization_id: string;
  name: string;
  email: string | null;
  phone_number: string | null;
  is_root: boolean;
  created_at: Date;
  updated_at: Date;
}

/** A UserRow's columns: not `*`, which would carry the user's owned rows along unread. */
const USER_ROW_COLUMNS = "id, organization_id, name, email, phone_number, is_root, created_at, updated_at";

export const UserRecord = Type.Object({
  userId: Type.String(),
  userName: Type.String(),
  userEmail: Type.Optional(Type.String()),
  userPhoneNumber: Type.Optional(Type.String()),
  authenticators: Type.Array(AuthenticatorRecord),
  apiKeys: Type.Array(ApiKeyRecord),
  userTags: Type.Array(Type.String()),
  oauthProviders: Type.Array(OauthProviderRecord),
  createdAt: ApiTimestamp,
  updatedAt: ApiTimestamp,
  /** The user's MFA policies, in the order they are evaluated. */
  mfaPolicies: Type.Array(MfaPolicyRecord),
});
export type UserRecord = Static<typeof UserRecord>;

/**
 * The rows a user owns, as `users.owned_rows` keeps them (migration 0040, rewritten by triggers with any change to
 * them): the columns their records show, timestamps as JSON strings; a kind the user has none of is null or absent.
 */
interface OwnedRows {
  api_keys?: Record<string, unknown>[] | null;
  authenticators?: Record<string, unknown>[] | null;
  oauth_providers?: Record<string, unknown>[] | null;
  mfa_policies?: Record<string, unknown>[] | null;
  tags?: string[] | null;
}

/** What a user record is made of: the user's own columns and the rows they own. */
type UserRecordSource = Pick<UserRow, "id" | "name" | "email" | "phone_number" | "created_at" | "updated_at"> & {
  owned_rows: OwnedRows;
};

const USER_RECORD_COLUMNS = ["id", "name", "email", "phone_number", "created_at", "updated_at", "owned_rows"] as const;

/**
 * What a user record is made of, as one JSON value (`userRecordFromJson` reads it), for a statement that names the
 * users table `alias`: authentication's reads it beside the credential, and the lists aggregate it.
 */
export const userRecordJson = (alias: string): string =>
  `json_build_object(${USER_RECORD_COLUMNS.map((column) => `'${column}', ${alias}.${column}`).join(", ")})`;

/** Rows read back from JSON: timestamps become Dates again. */
function revived<T>(rows: Record<string, unknown>[] | null | undefined): T[] {
  return (rows ?? []).map((data) => {
    const row: Record<string, unknown> = {};
    for (const [column, value] of Object.entries(data))
      row[column] = column.endsWith("_at") && typeof value === "string" ? new Date(value) : value;
    return row as T;
  });
}

/**
 * A user's record from the JSON `userRecordJson` reads. `now` is the services clock's time (never SQL's now(), so a
 * moved clock expires keys): an expired API key no longer exists for the API, and is left out.
 */
export function userRecordFromJson(json: Record<string, unknown>, now: Date): UserRecord {
  const [user] = revived<UserRecordSource>([json]) as [UserRecordSource];
  const owned = user.owned_rows;
  const apiKeys = revived<ApiKeyRow>(owned.api_keys).filter((key) => !key.expires_at || key.expires_at > now);
  const record: UserRecord = {
    userId: user.id,
    userName: user.name,
    authenticators: revived<AuthenticatorRow>(owned.authenticators).map(authenticatorRecord),
    apiKeys: apiKeys.map(apiKeyRecord),
    userTags: owned.tags ?? [],
    oauthProviders: revived<OauthProviderRow>(owned.oauth_providers).map(oauthProviderRecord),
    createdAt: toApiTimestamp(user.created_at),
    updatedAt: toApiTimestamp(user.updated_at),
    mfaPolicies: revived<MfaPolicyRow>(owned.mfa_policies).map(mfaPolicyRecord),
  };
  if (user.email) record.userEmail = user.email;
  if (user.phone_number) record.userPhoneNumber = user.phone_number;
  return record;
}

/**
 * Full user records (credentials, tags, providers) of an organization, optionally only some
 * users, in creation order, in one statement.
 */
export async function loadUserRecords(db: Queryable, organizationId: string, now: Date, userIds?: string[]): Promise<UserRecord[]> {
  // One JSON value for all of them, parsed at once: a row per user cost list_users of 10,000 users a quarter more CPU.
  const [{ users }] = (await db.query<{ users: Record<string, unknown>[] | null }>(
    `SELECT json_agg(${userRecordJson("u")} ORDER BY u.created_at, u.id) AS users
       FROM users u WHERE u.organization_id = $1${userIds ? " AND u.id = ANY($2::text[])" : ""}`,
    userIds ? [organizationId, userIds] : [organizationId],
  )) as [{ users: Record<string, unknown>[] | null }];
  return (users ?? []).map((user) => userRecordFromJson(user, now));
}

export async function loadUserRecord(db: Queryable, organizationId: string, userId: string, now: Date): Promise<UserRecord> {
  const [record] = await loadUserRecords(db, organizationId, now, [userId]);
  if (!record) throw notFound(`no user ${JSON.stringify(userId)} in organization ${organizationId}`);
  return record;
}

export async function requireUser(db: Queryable, organizationId: string, userId: string, field = "userId"): Promise<UserRow> {
  const [row] = await db.query<UserRow>(`SELECT ${USER_ROW_COLUMNS} FROM users WHERE id = $1 AND organization_id = $2`, [
    userId,
    organizationId,
  ]);
  if (!row) throw notFound(`${field}: no user ${JSON.stringify(userId)} in organization ${organizationId}`);
  return row;
}
