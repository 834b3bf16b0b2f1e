import type { AuditKeys } from "../crypto/audit-keys.js";
import type { Database } from "../store/database.js";
import { integrateOnce, type IntegrationSettings } from "./integrate.js";
import { allCheckpoints, findCheckpoint, readEntries } from "./read.js";

/** One record of an export, in order: the verifier key, every checkpoint (smallest first), then every entry. */
export type ExportRecord = { kind: "key"; text: string } | { kind: "checkpoint"; text: string } | { kind: "entry"; text: string };

/** The files of an export directory. */
export const EXPORT_FILES = {
  entries: "entries.ndjson",
  checkpoints: "checkpoints.ndjson",
  latest: "checkpoint",
  key: "public-key",
} as const;

const PAGE = 5000;

/**
 * The whole log for `strongroom audit export`, up to its latest checkpoint: first, when no other live process
 * holds the integrator's lease (no server runs, or this is the server holding it), what is committed is integrated
 * and a checkpoint of all of it signed; then the key, every checkpoint up to the latest, and entries 0 to its
 * size − 1. Entries after it (integrated by a running server since) are left to the next export, so everything
 * exported is covered by a signature.
 */
export async function* exportLog(db: Database, keys: AuditKeys, settings: IntegrationSettings): AsyncGenerator<ExportRecord> {
  for (let pass = await integrateOnce(db, keys, { ...settings, checkpointIntervalMs: 0 }); pass.more;)
    pass = await integrateOnce(db, keys, { ...settings, checkpointIntervalMs: 0 });
  yield { kind: "key", text: keys.verifierKey };
  const latest = await findCheckpoint(db);
  if (!latest) return;
  for (const checkpoint of await allCheckpoints(db))
    if (checkpoint.size <= latest.size) yield { kind: "checkpoint", text: checkpoint.note };
  for (let start = 0; start < latest.size;) {
    const page = await readEntries(db, null, start, Math.min(PAGE, latest.size - start));
    if (page.length === 0) return;
    for (const entry of page) yield { kind: "entry", text: entry.entry };
    start = page[page.length - 1]!.index + 1;
  }
}
