/**
 * Seeds an organization through Strongroom's own store adapter, so that it holds what a busy one does, in
 * seconds: every seeded row is a copy of a row the server itself wrote (through the API, before seeding) with
 * new ids, names and times, so the rows are shaped exactly as the server writes them and reads them back.
 *
 * - activities: copies of the organization's activities (the mix the scenarios wrote), each with its first vote
 *   and that vote's policy evaluations, older than every real one;
 * - users: copies of one user with no credentials;
 * - policies: copies of one policy;
 * - sub-organizations: copies of one sub-organization's row (the organization only, not its users);
 * - wallets: copies of one wallet with its one account (each with an address of its own); an organization holds at
 *   most 100 wallets (the API refuses more), so `wallets.inOrganization` go to the organization and the rest one
 *   to each seeded sub-organization.
 *
 * A copy's sealed values (a wallet's mnemonic, an account's key, an activity's secret parameters) are its template's,
 * bound to the template's id, so they do not open under the copy's: the benchmark lists and counts copies, never
 * signs with them. Not seeded: the audit log's entries (src/audit/) of the seeded activities.
 */
import type { Database, Queryable } from "../src/store/database.js";
import type { ScenarioSubjects } from "./scenarios.js";
import type { BuiltServerProcess } from "./support.js";
import { openPglite } from "../src/store/pglite.js";

export interface SeedCounts {
  activities: number;
  users: number;
  policies: number;
  subOrganizations: number;
  wallets: { total: number; inOrganization: number };
}

export interface SeedTemplates {
  organizationId: string;
  userId: string;
  policyId: string;
  subOrganizationId: string;
  walletId: string;
}

/** What the seeded copies are made from, written through the API: a policy and a sub-organization (the rest the scenarios made). */
export async function prepareTemplates(strongroom: BuiltServerProcess, subjects: ScenarioSubjects): Promise<SeedTemplates> {
  const client = strongroom.client();
  const { policyId } = await client.createPolicy({
    policyName: "operators create private keys",
    effect: "EFFECT_ALLOW",
    condition: "activity.type == 'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2'",
    consensus: `approvers.any(user, user.id == '${strongroom.root.userId}')`,
    notes: "",
  });
  const { subOrganizationId } = await client.createSubOrganization({
    subOrganizationName: "customer",
    rootUsers: [{ userName: "customer", apiKeys: [], authenticators: [], oauthProviders: [] }],
    rootQuorumThreshold: 1,
  });
  const { wallets } = await client.getWallets({});
  return {
    organizationId: strongroom.root.organizationId,
    userId: subjects.userIds[0]!,
    policyId,
    subOrganizationId,
    walletId: wallets.find((w) => w.walletName === "signer")!.walletId,
  };
}

/** Tables whose growth is reported, by what they hold. */
export const MEASURED_TABLES = {
  activity: ["activities", "votes", "policy_evaluations"],
  wallet: ["wallets", "wallet_accounts"],
  user: ["users"],
  policy: ["policies"],
  subOrganization: ["organizations"],
} as const;

export type TableBytes = Record<string, number>;

/** The first part of the seeded copies' ids, by kind: copy number g of a kind is `<kind>-0000-4000-8000-<g in 12 hex digits>`. */
export const SEEDED = {
  activity: "a0000001",
  vote: "a0000002",
  policyEvaluation: "a0000003",
  user: "b0000001",
  policy: "c0000001",
  subOrganization: "d0000001",
  wallet: "e0000001",
  walletAccount: "e0000002",
} as const;

/** The id of copy number `g` of a kind. */
export const seededCopyId = (kind: keyof typeof SEEDED, g: number) => `${SEEDED[kind]}-0000-4000-8000-${g.toString(16).padStart(12, "0")}`;

/** The same in SQL, `g` an SQL expression. */
const seededId = (kind: keyof typeof SEEDED, g: string) => `format('%s-0000-4000-8000-%s', '${SEEDED[kind]}', lpad(to_hex(${g}), 12, '0'))`;

/** The table's columns a copy writes (not those the database generates). */
async function columnsOf(db: Queryable, table: string): Promise<string[]> {
  const rows = await db.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = $1 AND is_generated = 'NEVER' AND is_identity = 'NO'
      ORDER BY ordinal_position`,
    [table],
  );
  if (rows.length === 0) throw new Error(`no table ${table}`);
  return rows.map((r) => r.column_name);
}

/** Inserts one row per row `t` of `source` (which also yields `g`), each column `t.<column>` unless `set` gives it. */
async function insertCopies(db: Queryable, table: string, source: string, set: Record<string, string>, params: unknown[]): Promise<void> {
  const columns = await columnsOf(db, table);
  const [inserted] = await db.query<{ rows: string }>(
    `WITH copies AS (INSERT INTO ${table} (${columns.join(", ")}) SELECT ${columns.map((c) => set[c] ?? `t.${c}`).join(", ")} FROM ${source} RETURNING 1)
     SELECT count(*) AS rows FROM copies`,
    params,
  );
  process.stderr.write(`  ${table}: ${inserted!.rows} rows\n`);
}

export async function tableBytes(db: Queryable): Promise<TableBytes> {
  const tables = Object.values(MEASURED_TABLES).flat();
  const [row] = await db.query<Record<string, string>>(
    `SELECT ${tables.map((t) => `pg_total_relation_size('${t}') AS ${t}`).join(", ")}, pg_database_size(current_database()) AS whole_database`,
  );
  return Object.fromEntries(Object.entries(row!).map(([k, v]) => [k, Number(v)]));
}

async function seedRows(db: Queryable, templates: SeedTemplates, counts: SeedCounts): Promise<void> {
  const org = templates.organizationId;
  // Seeded rows are older than the real ones: a list's first page shows what the server wrote, its deep pages copies.
  const past = (g: string) => `now() - interval '30 days' + ${g} * interval '1 ms'`;
  const times = (g: string) => ({ created_at: past(g), updated_at: past(g) });

  // Activities cycle through the organization's own (numbered k = 0..n-1), copy g of activity k = g mod n; each copy
  // keeps its template's first vote and that vote's policy evaluations.
  // (The copies' votes and evaluations are inserted after them, so the templates exclude the copies.)
  const templateActivities = "activities a WHERE a.organization_id = $1 AND a.fingerprint NOT LIKE 'seeded:%'";
  const activityCopies = `(SELECT a.*, row_number() OVER (ORDER BY a.created_at, a.id) - 1 AS k FROM ${templateActivities}) x
    JOIN generate_series(1, $2::int) g ON x.k = g % (SELECT count(*) FROM ${templateActivities})`;
  const firstVotes = "(SELECT DISTINCT ON (activity_id) * FROM votes ORDER BY activity_id, created_at) v";
  const activityId = seededId("activity", "g");
  const voteId = seededId("vote", "g");
  const params = [org, counts.activities];
  await insertCopies(
    db,
    "activities",
    `(SELECT x.*, g FROM ${activityCopies}) t`,
    { id: activityId, fingerprint: `'seeded:' || g`, ...times("g") },
    params,
  );
  await insertCopies(
    db,
    "votes",
    `(SELECT v.*, g FROM ${firstVotes} JOIN ${activityCopies} ON v.activity_id = x.id) t`,
    { id: voteId, activity_id: activityId, created_at: past("g") },
    params,
  );
  await insertCopies(
    db,
    "policy_evaluations",
    `(SELECT DISTINCT ON (g) e.*, g FROM ${firstVotes} JOIN policy_evaluations e ON e.vote_id = v.id JOIN ${activityCopies} ON v.activity_id = x.id ORDER BY g) t`,
    { id: seededId("policyEvaluation", "g"), activity_id: activityId, vote_id: voteId, created_at: past("g") },
    params,
  );

  const copiesOf = (table: string) => `(SELECT * FROM ${table} WHERE id = $1) t CROSS JOIN generate_series(1, $2::int) g`;
  await insertCopies(db, "users", copiesOf("users"), { id: seededId("user", "g"), name: `'seeded user ' || g`, ...times("g") }, [
    templates.userId,
    counts.users,
  ]);
  await insertCopies(db, "policies", copiesOf("policies"), { id: seededId("policy", "g"), name: `'seeded policy ' || g`, ...times("g") }, [
    templates.policyId,
    counts.policies,
  ]);
  const subOrganizationId = (g: string) => seededId("subOrganization", g);
  await insertCopies(
    db,
    "organizations",
    copiesOf("organizations"),
    { id: subOrganizationId("g"), name: `'seeded sub-organization ' || g`, ...times("g") },
    [templates.subOrganizationId, counts.subOrganizations],
  );

  const { total, inOrganization } = counts.wallets;
  if (total - inOrganization > counts.subOrganizations) throw new Error("more wallets than places for them");
  const owner = `CASE WHEN g <= ${inOrganization} THEN t.organization_id ELSE ${subOrganizationId(`g - ${inOrganization}`)} END`;
  const walletId = seededId("wallet", "g");
  await insertCopies(
    db,
    "wallets",
    copiesOf("wallets"),
    { id: walletId, organization_id: owner, name: `'seeded wallet ' || g`, ...times("g") },
    [templates.walletId, total],
  );
  await insertCopies(
    db,
    "wallet_accounts",
    `(SELECT * FROM wallet_accounts WHERE wallet_id = $1) t CROSS JOIN generate_series(1, $2::int) g`,
    {
      id: seededId("walletAccount", "g"),
      organization_id: owner,
      wallet_id: walletId,
      // An address of its own (signing looks a key up by its address), shaped like the template's.
      address: `'0x' || substr(md5('seeded' || g) || md5(g || 'seeded'), 1, length(t.address) - 2)`,
      ...times("g"),
    },
    [templates.walletId, total],
  );
}

/** The store as the server left it: not migrated by these sources (the server may be another build, BENCH_CLI). */
async function openUnmigrated({ dataDir, databaseUrl }: { dataDir: string; databaseUrl?: string }): Promise<Database> {
  return databaseUrl ? (await import("../src/store/postgres.js")).openPostgres(databaseUrl) : openPglite(dataDir);
}

/** Seeds `templates.organizationId` in the store at `where` (the server stopped); answers the measured tables' sizes before and after. */
export async function seedOrganization(
  where: { dataDir: string; databaseUrl?: string },
  templates: SeedTemplates,
  counts: SeedCounts,
): Promise<{ before: TableBytes; after: TableBytes; seedMs: number }> {
  const db = await openUnmigrated(where);
  try {
    await db.exec("VACUUM ANALYZE");
    const before = await tableBytes(db);
    const started = performance.now();
    await db.transaction((tx) => seedRows(tx, templates, counts));
    const seedMs = Math.round(performance.now() - started);
    // As autovacuum would soon after a bulk load: statistics for the planner, the visibility map for index-only scans.
    await db.exec("VACUUM ANALYZE");
    return { before, after: await tableBytes(db), seedMs };
  } finally {
    await db.close();
  }
}
