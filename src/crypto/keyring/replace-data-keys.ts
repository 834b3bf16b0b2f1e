import { randomBytes } from "node:crypto";
import type { Queryable } from "../../store/database.js";
import { resealEverything, type RekeyCounts } from "../rekey.js";
import { Keyring } from "./keyring.js";
import { readKeyRows, readSealRow } from "./keyring-rows.js";
import { wrapForRecovery } from "./recovery.js";
import { localRootWrapper, type RootWrapper } from "./root-wrapper.js";

/** A new data key version, wrapped before any transaction begins: a KMS wraps it over the network, an HSM in the token. */
export interface PreparedKeyVersion {
  version: number;
  dataKey: Buffer;
  wrapped: string;
  wrappedBy: string;
  recoveryWrapped: string | null;
}

/**
 * The keyring's next version, wrapped by `wrapper` (and to the recovery key, when the keyring has one), for
 * `replaceDataKeys`. The caller overwrites `dataKey` once that transaction is over.
 */
export async function prepareKeyVersion(db: Queryable, wrapper: RootWrapper): Promise<PreparedKeyVersion> {
  const [{ next } = { next: 1 }] = await db.query<{ next: number }>("SELECT coalesce(max(version), 0) + 1 AS next FROM keyring");
  const version = Number(next);
  const seal = await readSealRow(db);
  const dataKey = randomBytes(32);
  return {
    version,
    dataKey,
    wrapped: await wrapper.wrap(dataKey, version),
    wrappedBy: wrapper.label,
    recoveryWrapped: seal?.recovery_public_key ? await wrapForRecovery(dataKey, version, seal.recovery_public_key) : null,
  };
}

/**
 * Offline rotation, in the caller's transaction (no server runs on the store): the prepared version added, every sealed
 * value moved to it from `from` (which opens them all), and every other version deleted. `rekey` prepares it with the
 * new master key's wrapper; `keyring rotate` without a server, with the current one. All or nothing; the caller purges
 * the old row versions after the commit.
 */
export async function replaceDataKeys(
  tx: Queryable,
  from: Keyring,
  prepared: PreparedKeyVersion,
): Promise<{ version: number; resealed: RekeyCounts }> {
  await tx.query("SELECT version FROM keyring ORDER BY version FOR UPDATE");
  const [{ next } = { next: 1 }] = await tx.query<{ next: number }>("SELECT coalesce(max(version), 0) + 1 AS next FROM keyring");
  const { version } = prepared;
  if (Number(next) !== version)
    throw new Error(`the keyring gained version ${version} while a new one was prepared: run the command again`);
  await tx.query(
    `INSERT INTO keyring (version, wrapped_key, wrapped_by, recovery_wrapped_key, seal_from, reseal_from, created_at)
     VALUES ($1, $2, $3, $4, now(), now(), now())`,
    [version, prepared.wrapped, prepared.wrappedBy, prepared.recoveryWrapped],
  );
  // A copy: the keyring overwrites its keys when dropped, and a retried transaction runs this again.
  const to = new Keyring();
  to.install({ keys: new Map([[version, Buffer.from(prepared.dataKey)]]), sealingVersion: version });
  try {
    const resealed = await resealEverything(tx, from, to);
    await tx.query("DELETE FROM keyring WHERE version <> $1", [version]);
    return { version, resealed };
  } finally {
    to.drop();
  }
}

/** Whether `key`, as the file provider's key, opens the store: its keyring's sealing version, or (before the keyring) its signer key. */
export async function fileKeyOpensStore(db: Queryable, key: Buffer, openLegacy: (sealed: string) => void): Promise<boolean> {
  const rows = await readKeyRows(db);
  try {
    if (rows.length > 0) {
      const newest = rows[rows.length - 1]!;
      (await localRootWrapper(key, "file").unwrap(newest.wrapped_key, newest.version)).fill(0);
      return true;
    }
    const [signer] = await db.query<{ sealed: string }>("SELECT sealed FROM server_secrets WHERE name = 'signer'");
    if (signer) openLegacy(signer.sealed);
    return true;
  } catch {
    return false;
  }
}
