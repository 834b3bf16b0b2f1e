import { renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { initRootOrganization } from "../domains/organizations/init-root-organization.js";
import type { Services } from "../services.js";

/** Where the first start of an empty data directory writes the root organization's credentials. */
export const INITIAL_CREDENTIALS_FILE = "initial-credentials.json";

/**
 * On the first start of an empty embedded store: creates the root organization (as `strongroom init` does) and
 * writes what `init` prints — its root API key's private half included — to `initial-credentials.json` in the
 * data directory, mode 0600, as Jenkins leaves its initial admin password. Answers the file's path, or
 * undefined when the store already holds an organization.
 */
export async function createRootOnFirstStart(services: Services, dataDir: string): Promise<string | undefined> {
  const [any] = await services.db.query("SELECT 1 FROM organizations LIMIT 1");
  if (any) return undefined;
  const result = await initRootOrganization(services);
  const path = join(dataDir, INITIAL_CREDENTIALS_FILE);
  const draft = `${path}.${process.pid}.tmp`;
  rmSync(draft, { force: true });
  writeFileSync(draft, JSON.stringify(result, null, 2) + "\n", { mode: 0o600, flag: "wx" });
  renameSync(draft, path);
  return path;
}
