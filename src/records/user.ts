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

/** A row read back from to_jsonb(): timestamps become Dates again. */
function reviveRow(data: Record<string, unknown>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(data))
    row[column] = column.endsWith("_at") && typeof value === "string" ? new Date(value) : value;
  return row;
}

function groupBy<T>(rows: T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = groups.get(k);
    if (list) list.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}

/**
 * JSON columns for one statement: `user_rows`, an organization's users (all, or those `userFilter` admits), and one
 * column for each kind of row they own (API keys, authenticators, OAuth providers, MFA policies, tag assignments).
 * `organizationId` and `now` (the services clock's time, never SQL's now(), so a moved clock expires keys) are SQL
 * expressions and `userFilter` turns a user id column into a SQL condition, so the columns can ride along in another
 * statement (authentication's). The subqueries name their tables `listed_*`, so that an expression naming a table
 * of the outer statement (`k.user_id`) is never taken for a column of the subquery's own table: it once was, and
 * every activity read every API key of the store. With `userFilter`, owned rows are found by their user alone (its
 * index): a user's rows are in its organization, and rows of users not in `user_rows` are not read into any record.
 * One scalar subquery per kind: a union of the kinds, numbered and sorted as one, took a tenth longer.
 */
export function userRecordsColumns(organizationId: string, now: string, userFilter?: (userIdColumn: string) => string): string {
  const owned = (table: string, userTable = table) =>
    userFilter ? userFilter(`${userTable}.user_id`) : `${table}.organization_id = ${organizationId}`;
  return `(SELECT json_agg(listed_user ORDER BY listed_user.created_at, listed_user.id) FROM users listed_user
       WHERE listed_user.organization_id = ${organizationId}${userFilter ? ` AND ${userFilter("listed_user.id")}` : ""}) AS user_rows,
    (SELECT json_agg(to_jsonb(listed_key) ORDER BY listed_key.seq) FROM api_keys listed_key
      WHERE ${owned("listed_key")} AND (listed_key.expires_at IS NULL OR listed_key.expires_at > ${now}::timestamptz)) AS api_key_rows,
    (SELECT json_agg(to_jsonb(listed_authenticator) ORDER BY listed_authenticator.created_at, listed_authenticator.id)
       FROM authenticators listed_authenticator WHERE ${owned("listed_authenticator")}) AS authenticator_rows,
    (SELECT json_agg(to_jsonb(listed_provider) ORDER BY listed_provider.created_at, listed_provider.id)
       FROM oauth_providers listed_provider WHERE ${owned("listed_provider")}) AS oauth_provider_rows,
    (SELECT json_agg(to_jsonb(listed_mfa) ORDER BY listed_mfa.position, listed_mfa.created_at, listed_mfa.id)
       FROM mfa_policies listed_mfa WHERE ${owned("listed_mfa")}) AS mfa_policy_rows,
    (SELECT json_agg(json_build_object('user_id', listed_assignment.user_id, 'tag_id', listed_assignment.tag_id)
              ORDER BY listed_tag.created_at, listed_tag.id)
       FROM user_tag_assignments listed_assignment JOIN user_tags listed_tag ON listed_tag.id = listed_assignment.tag_id
      WHERE ${owned("listed_tag", "listed_assignment")}) AS tag_rows`;
}

/** The columns of `userRecordsColumns`, each a JSON array of rows, or null for none. */
const USER_RECORDS_COLUMNS = [
  "user_rows",
  "api_key_rows",
  "authenticator_rows",
  "oauth_provider_rows",
  "mfa_policy_rows",
  "tag_rows",
] as const;
export type UserRecordsJson = Record<(typeof USER_RECORDS_COLUMNS)[number], Record<string, unknown>[] | null>;

/** Takes the columns of `userRecordsColumns` out of a row that holds others too (authentication's). */
export function takeUserRecordsJson(row: Record<string, unknown>): UserRecordsJson {
  const columns = {} as UserRecordsJson;
  for (const column of USER_RECORDS_COLUMNS) {
    columns[column] = (row[column] as Record<string, unknown>[] | null | undefined) ?? null;
    delete row[column];
  }
  return columns;
}

/** The user records the columns of `userRecordsColumns` describe, in creation order. */
export function userRecordsFrom(columns: UserRecordsJson): UserRecord[] {
  const users = (columns.user_rows ?? []).map((row) => reviveRow(row) as unknown as UserRow);
  const rowsOf = <T>(rows: Record<string, unknown>[] | null) => (rows ?? []).map((row) => reviveRow(row) as T);
  const keysByUser = groupBy(rowsOf<ApiKeyRow>(columns.api_key_rows), (r) => r.user_id);
  const authByUser = groupBy(rowsOf<AuthenticatorRow>(columns.authenticator_rows), (r) => r.user_id);
  const providersByUser = groupBy(rowsOf<OauthProviderRow>(columns.oauth_provider_rows), (r) => r.user_id);
  const mfaByUser = groupBy(rowsOf<MfaPolicyRow>(columns.mfa_policy_rows), (r) => r.user_id);
  const tagsByUser = groupBy((columns.tag_rows ?? []) as Array<{ user_id: string; tag_id: string }>, (r) => r.user_id);
  return users.map((user) => {
    const record: UserRecord = {
      userId: user.id,
      userName: user.name,
      authenticators: (authByUser.get(user.id) ?? []).map(authenticatorRecord),
      apiKeys: (keysByUser.get(user.id) ?? []).map(apiKeyRecord),
      userTags: (tagsByUser.get(user.id) ?? []).map((t) => t.tag_id),
      oauthProviders: (providersByUser.get(user.id) ?? []).map(oauthProviderRecord),
      createdAt: toApiTimestamp(user.created_at),
      updatedAt: toApiTimestamp(user.updated_at),
      mfaPolicies: (mfaByUser.get(user.id) ?? []).map(mfaPolicyRecord),
    };
    if (user.email) record.userEmail = user.email;
    if (user.phone_number) record.userPhoneNumber = user.phone_number;
    return record;
  });
}

/**
 * Full user records (credentials, tags, providers) of an organization, optionally only some
 * users, in creation order, in one statement. Expired API keys are not shown: they no longer exist for the API.
 */
export async function loadUserRecords(db: Queryable, organizationId: string, now: Date, userIds?: string[]): Promise<UserRecord[]> {
  const [columns] = await db.query<UserRecordsJson>(
    `SELECT ${userRecordsColumns("$1", "$2", userIds ? (column) => `${column} = ANY($3::text[])` : undefined)}`,
    userIds ? [organizationId, now, userIds] : [organizationId, now],
  );
  return userRecordsFrom(columns!);
}

export async function loadUserRecord(db: Queryable, organizationId: string, userId: string, now: Date): Promise<UserRecord> {
  const [record] = await loadUserRecords(db, organizationId, now, [userId]);
  if (!record) throw notFound(`no user ${JSON.stringify(userId)} in organization ${organizationId}`);
  return record;
}

export async function requireUser(db: Queryable, organizationId: string, userId: string, field = "userId"): Promise<UserRow> {
  const [row] = await db.query<UserRow>("SELECT * FROM users WHERE id = $1 AND organization_id = $2", [userId, organizationId]);
  if (!row) throw notFound(`${field}: no user ${JSON.stringify(userId)} in organization ${organizationId}`);
  return row;
}
