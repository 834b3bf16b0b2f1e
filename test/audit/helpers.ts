import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { exportLog } from "../../src/audit/export.js";
import { writeExportDirectory } from "../../src/audit/export-directory.js";
import { integrationSettings } from "../../src/audit/integrator.js";
import type { Services } from "../../src/services.js";
import type { Queryable } from "../../src/store/database.js";
import { p256Stamp, post } from "../helpers/requests.js";
import type { TestServer } from "../helpers/server.js";

/** What a test server of the audit tests sets: a checkpoint every integration pass, and a quick poll. */
export const AUDIT_TEST_ENV = { STRONGROOM_AUDIT_CHECKPOINT_SECONDS: "0", STRONGROOM_AUDIT_POLL_MS: "50" };

/**
 * Waits until every committed event is in the log and a checkpoint covers all of it (the integrator runs on its
 * own); answers the log's size.
 */
export async function settled(db: Queryable): Promise<number> {
  for (let waited = 0; ; waited += 20) {
    const [state] = await db.query<{ pending: string; size: string; checkpoint: string | null }>(
      "SELECT (SELECT count(*) FROM audit_pending) AS pending, s.size, (SELECT max(size) FROM audit_checkpoints) AS checkpoint FROM audit_log_state s",
    );
    if (state!.pending === "0" && state!.checkpoint === state!.size) return Number(state!.size);
    if (waited > 20_000) throw new Error(`the audit log did not settle: ${JSON.stringify(state)}`);
    await sleep(20);
  }
}

/** A stamped POST to one of Strongroom's own queries, as the root user (or `key`). */
export function strongroomQuery(
  server: TestServer,
  operation: string,
  body: Record<string, unknown>,
  options: { key?: { publicKey: string; privateKey: string }; accept?: string } = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const text = JSON.stringify({ organizationId: server.root.organizationId, ...body });
  const publicKey = options.key?.publicKey ?? server.root.apiPublicKey;
  const privateKey = options.key?.privateKey ?? server.root.apiPrivateKey!;
  return post(`${server.url}/strongroom/v1/query/${operation}`, text, {
    "X-Stamp": p256Stamp(text, publicKey, privateKey),
    ...(options.accept ? { accept: options.accept } : {}),
  });
}

/** Exports the log of `services` to a new temporary directory, as `strongroom audit export` does; answers the directory. */
export async function exportTo(services: Services): Promise<string> {
  const dir = join(mkdtempSync(join(tmpdir(), "strongroom-audit-")), "export");
  await writeExportDirectory(dir, exportLog(services.db, services.audit.keys, integrationSettings(services.audit.settings)));
  return dir;
}
