import { freshPostgresDatabase } from "./postgres-database.js";
import { Turnkey } from "@turnkey/sdk-server";
import { randomBytes } from "node:crypto";
import { runCli } from "./processes.js";

export interface RootCredentials {
  organizationId: string;
  userId: string;
  apiPublicKey: string;
  apiPrivateKey: string;
}

/** A fresh database on the PostgreSQL at DATABASE_URL, and the environment for `strongroom` processes sharing it. */
export async function sharedPostgres(
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<{ url: string; sqlUrl: string; env: NodeJS.ProcessEnv; drop(): Promise<void> }> {
  const { url, drop } = await freshPostgresDatabase(process.env.DATABASE_URL!, "strongroom_procs");
  // For a test's own queries: Strongroom's tables are in its own schema (DATABASE_SCHEMA, default strongroom).
  const sqlUrl = new URL(url);
  sqlUrl.searchParams.set("options", "-c search_path=strongroom");
  return {
    url,
    sqlUrl: sqlUrl.toString(),
    env: {
      ...process.env,
      LOG_LEVEL: "warn",
      // One process each, as the tests count them (serve's default on PostgreSQL is one worker per core);
      // test/cluster/workers.test.ts runs several.
      STRONGROOM_WORKERS: "1",
      ...extraEnv,
      DATABASE_URL: url,
      STRONGROOM_MASTER_KEY: randomBytes(32).toString("hex"),
    },
    drop,
  };
}

/** The environment for `strongroom` processes on an embedded data directory (no DATABASE_URL). */
export function embeddedEnv(dataDir: string, extraEnv: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: "warn", ...extraEnv, STRONGROOM_DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  delete env.STRONGROOM_MASTER_KEY;
  return env;
}

/** `strongroom init` in its own process: the root organization's credentials. */
export function initRoot(env: NodeJS.ProcessEnv): RootCredentials {
  const init = runCli(["init"], env);
  if (init.status !== 0) throw new Error(`strongroom init failed: ${init.stderr}`);
  return JSON.parse(init.stdout) as RootCredentials;
}

/** An sdk-server client against one process. */
export function sdkClient(url: string, credentials: { apiPublicKey: string; apiPrivateKey: string }, organizationId: string) {
  return new Turnkey({
    apiBaseUrl: url,
    apiPublicKey: credentials.apiPublicKey,
    apiPrivateKey: credentials.apiPrivateKey,
    defaultOrganizationId: organizationId,
    activityPoller: { intervalMs: 10, numRetries: 2 },
  }).apiClient();
}
