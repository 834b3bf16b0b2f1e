import { renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { initRootOrganization } from "../domains/organizations/init-root-organization.js";
import type { Services } from "../services.js";
import type { Queryable } from "../store/database.js";

/** Where the first start of an empty data directory writes the root organization's credentials. */
export const INITIAL_CREDENTIALS_FILE = "initial-credentials.json";

/**
 * On the first start of an empty embedded store: creates the root organization (as `strongroom init` does) and
 * writes what `init` prints — its root API key's private half included — to `initial-credentials.json` in the
 * data directory, mode 0600, as Jenkins leaves its initial admin password. Answers the file's path, or
 * undefined when the store already holds an organization.
 */
export async function createRootOnFirstStart(services: Services, dataDir: string): Promise<string | undefined> {
  if (await hasAnyOrganization(services.db)) return undefined;
  const result = await initRootOrganization(services);
  const path = join(dataDir, INITIAL_CREDENTIALS_FILE);
  const draft = `${path}.${process.pid}.tmp`;
  rmSync(draft, { force: true });
  writeFileSync(draft, JSON.stringify(result, null, 2) + "\n", { mode: 0o600, flag: "wx" });
  renameSync(draft, path);
  return path;
}

export const hasAnyOrganization = async (db: Queryable): Promise<boolean> =>
  (await db.query("SELECT 1 FROM organizations LIMIT 1")).length > 0;

/** What `serve` warns at start on a store without any organization (PostgreSQL, memory://, or --no-init). */
export const NO_ORGANIZATION_YET =
  "no organization yet: run `strongroom init` with the same data directory (or DATABASE_URL) to create one — it works while " +
  "this server runs — or use `strongroom dev` for a development server that creates one for you";
