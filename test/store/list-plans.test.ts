import { freshPostgresDatabase } from "../helpers/postgres-database.js";
import { afterAll, describe, expect, it } from "vitest";
import type { Database, Queryable } from "../../src/store/database.js";
import { openStore } from "../../src/store/open.js";
import { subOrganizationIds } from "../../src/domains/organizations/sub-organization-ids.js";

/**
 * A page of a list costs the page, not the list: in an organization with thousands of sub-organizations, the
 * statement of a list_suborgs page (first, and after a cursor) reads them in order from an index, with no sort of
 * every sub-organization (bench/scale.ts measures it; this holds the plan to it). On both stores.
 */
const baseUrl = process.env.DATABASE_URL;
const dropped: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const drop of dropped) await drop();
});

const stores: Array<{ name: string; skip: boolean; open: () => Promise<Database> }> = [
  { name: "PGlite", skip: false, open: () => openStore({ dataDir: "memory://" }) },
  {
    name: "PostgreSQL",
    skip: !baseUrl,
    open: async () => {
      const { url, drop } = await freshPostgresDatabase(baseUrl!, "strongroom_list_plans");
      dropped.push(drop);
      return openStore({ databaseUrl: url, dataDir: "memory://" });
    },
  },
];

interface PlanNode {
  "Node Type": string;
  "Index Name"?: string;
  Plans?: PlanNode[];
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** The statements `list` issues, each with the plan the store chooses for it. */
async function plansOf(db: Queryable, list: (recorder: Queryable) => Promise<unknown>): Promise<PlanNode[][]> {
  const statements: Array<{ sql: string; params: unknown[] }> = [];
  await list({
    query: async <Row>(sql: string, params: unknown[] = []) => {
      statements.push({ sql, params });
      return db.query<Row>(sql, params);
    },
    exec: (sql) => db.exec(sql),
  });
  const plans: PlanNode[][] = [];
  for (const { sql, params } of statements) {
    const [row] = await db.query<{ "QUERY PLAN": Array<{ Plan: PlanNode }> | string }>(`EXPLAIN (FORMAT JSON) ${sql}`, params);
    const plan = row!["QUERY PLAN"];
    plans.push(nodesOf((typeof plan === "string" ? (JSON.parse(plan) as Array<{ Plan: PlanNode }>) : plan)[0]!.Plan));
  }
  return plans;
}

describe.each(stores)("list_suborgs on $name", ({ skip, open }) => {
  it.skipIf(skip)("reads a page of 2,000 sub-organizations in order from an index, first and after a cursor", async () => {
    const db = await open();
    try {
      await db.query("INSERT INTO organizations (id, name, created_at, updated_at) VALUES ('parent', 'parent', now(), now())");
      await db.query(
        `INSERT INTO organizations (id, name, parent_id, created_at, updated_at)
         SELECT 'child ' || g, 'child ' || g, 'parent', now() - g * interval '1 s', now() FROM generate_series(1, 2000) g`,
      );
      await db.exec("ANALYZE organizations");

      const firstPage = await plansOf(db, (recorder) => subOrganizationIds(recorder, "TRUE", ["parent"], { limit: "10" }));
      const deepPage = await plansOf(db, (recorder) =>
        subOrganizationIds(recorder, "TRUE", ["parent"], { limit: "10", after: "child 100" }),
      );
      for (const plan of [...firstPage, ...deepPage]) {
        expect(plan.map((n) => n["Node Type"])).not.toContain("Sort");
        expect(plan.map((n) => n["Index Name"])).toContain("organizations_parent_created");
      }
      // And the page is the right one: oldest first, after the cursor.
      expect(await subOrganizationIds(db, "TRUE", ["parent"], { limit: "3", after: "child 100" })).toEqual([
        "child 99",
        "child 98",
        "child 97",
      ]);
    } finally {
      await db.close();
    }
  });
});
