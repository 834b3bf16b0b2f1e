import { randomBytes } from "node:crypto";
import type { SealProvider } from "../../config.js";
import type { Queryable } from "../../store/database.js";
import { wrapForRecovery } from "./recovery.js";
import type { RootWrapper } from "./root-wrapper.js";

/** The keyring_seal row: which provider wraps the keyring, the Shamir parameters, the recovery key's public half. */
export interface SealRow {
  provider: SealProvider;
  key_shares: number | null;
  key_threshold: number | null;
  recovery_public_key: string | null;
  recovery_shares: number | null;
  recovery_threshold: number | null;
}

/** A keyring row, with whether (by the database's clock) values are sealed under it yet and moved to it yet. */
export interface KeyRow {
  version: number;
  wrapped_key: string;
  wrapped_by: string;
  recovery_wrapped_key: string | null;
  sealing: boolean;
  resealing: boolean;
}

export async function readSealRow(db: Queryable): Promise<SealRow | undefined> {
  const [row] = await db.query<SealRow>(
    "SELECT provider, key_shares, key_threshold, recovery_public_key, recovery_shares, recovery_threshold FROM keyring_seal",
  );
  return row;
}

export async function readKeyRows(db: Queryable): Promise<KeyRow[]> {
  const rows = await db.query<KeyRow>(
    `SELECT version, wrapped_key, wrapped_by, recovery_wrapped_key, seal_from <= now() AS sealing, reseal_from <= now() AS resealing
     FROM keyring ORDER BY version`,
  );
  return rows.map((row) => ({ ...row, version: Number(row.version) }));
}

/** The version new values go under: the newest whose seal_from has passed (the first, when none has yet). */
export function sealingVersionOf(rows: readonly KeyRow[]): number {
  const sealing = rows.filter((r) => r.sealing);
  return (sealing.length > 0 ? sealing[sealing.length - 1]! : rows[0]!).version;
}

export interface NewKeyring {
  provider: SealProvider;
  keyShares?: { shares: number; threshold: number };
  recovery?: { publicKeyHex: string; shares: number; threshold: number };
}

/**
 * Creates the keyring: its seal row and data key version 1, wrapped by `wrapper` (and to the recovery key). Several
 * processes may start at once on an empty store: the first insert wins whole (version 1 is written only with the seal
 * row that won), and every process reads back what won.
 */
export async function createKeyring(db: Queryable, wrapper: RootWrapper, keyring: NewKeyring): Promise<void> {
  const dataKey = randomBytes(32);
  try {
    const wrapped = await wrapper.wrap(dataKey, 1);
    const recoveryWrapped = keyring.recovery ? await wrapForRecovery(dataKey, 1, keyring.recovery.publicKeyHex) : null;
    // One statement: a process that finds the seal row goes on to read version 1, so the two must appear together.
    await db.query(
      `WITH seal AS (
         INSERT INTO keyring_seal (provider, key_shares, key_threshold, recovery_public_key, recovery_shares, recovery_threshold, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, now()) ON CONFLICT DO NOTHING RETURNING 1
       )
       INSERT INTO keyring (version, wrapped_key, wrapped_by, recovery_wrapped_key, seal_from, reseal_from, created_at)
       SELECT 1, $7, $8, $9, now(), now(), now() FROM seal ON CONFLICT DO NOTHING`,
      [
        keyring.provider,
        keyring.keyShares?.shares ?? null,
        keyring.keyShares?.threshold ?? null,
        keyring.recovery?.publicKeyHex ?? null,
        keyring.recovery?.shares ?? null,
        keyring.recovery?.threshold ?? null,
        wrapped,
        wrapper.label,
        recoveryWrapped,
      ],
    );
  } finally {
    dataKey.fill(0);
  }
}

/** A rotation's grace, in STRONGROOM_KEYRING_POLL_MS: every process reads the keyring well within it. */
export const ROTATION_GRACE_POLLS = 5;

/**
 * Adds the next data key version (rotation). Values are sealed under it from `graceMs` on — by then every process,
 * reading the keyring every STRONGROOM_KEYRING_POLL_MS, holds it — and the values under older versions are moved to
 * it from twice that on, when no process seals under an older version any more.
 */
export async function addKeyVersion(db: Queryable, wrapper: RootWrapper, graceMs: number): Promise<number> {
  const dataKey = randomBytes(32);
  try {
    const seal = await readSealRow(db);
    const [{ next } = { next: 1 }] = await db.query<{ next: number }>("SELECT coalesce(max(version), 0) + 1 AS next FROM keyring");
    const version = Number(next);
    const wrapped = await wrapper.wrap(dataKey, version);
    const recoveryWrapped = seal?.recovery_public_key ? await wrapForRecovery(dataKey, version, seal.recovery_public_key) : null;
    await db.query(
      `INSERT INTO keyring (version, wrapped_key, wrapped_by, recovery_wrapped_key, seal_from, reseal_from, created_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5::float8), now() + make_interval(secs => $5::float8 * 2), now())`,
      [version, wrapped, wrapper.label, recoveryWrapped, graceMs / 1000],
    );
    return version;
  } finally {
    dataKey.fill(0);
  }
}
