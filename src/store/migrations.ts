import { MIGRATION_LOCK, type Database } from "./database.js";
import { foundation } from "./migrations/0001-foundation.js";
import { wallets } from "./migrations/0002-wallets.js";
import { policies } from "./migrations/0003-policies.js";
import { webhooks } from "./migrations/0004-webhooks.js";
import { balances } from "./migrations/0005-balances.js";
import { ipAllowlists } from "./migrations/0006-ip-allowlists.js";
import { oauth2 } from "./migrations/0007-oauth2.js";
import { otp } from "./migrations/0008-otp.js";
import { authProxy } from "./migrations/0009-auth-proxy.js";
import { verifiedContacts } from "./migrations/0010-verified-contacts.js";
import { provenIdentities } from "./migrations/0011-proven-identities.js";
import { rateLimits } from "./migrations/0012-rate-limits.js";
import { passkeyRelyingParty } from "./migrations/0013-passkey-relying-party.js";
import { activityClaims } from "./migrations/0014-activity-claims.js";
import { secrets } from "./migrations/0015-secrets.js";
import { sessionProfiles } from "./migrations/0016-session-profiles.js";
import { mfaPolicies } from "./migrations/0017-mfa-policies.js";
import { identityLookups } from "./migrations/0019-identity-lookups.js";
import { selfAssertedIdentities } from "./migrations/0020-self-asserted-identities.js";
import { boundProofs } from "./migrations/0021-bound-proofs.js";
import { spentOidcTokens } from "./migrations/0023-spent-oidc-tokens.js";
import { rateLimitSweep } from "./migrations/0024-rate-limit-sweep.js";
import { proofSweep } from "./migrations/0025-proof-sweep.js";
import { sendTransactions } from "./migrations/0026-send-transactions.js";
import { sentTransactionHistory } from "./migrations/0027-sent-transaction-history.js";
import { velocityControls } from "./migrations/0028-velocity-controls.js";
import { claimHolders } from "./migrations/0031-claim-holders.js";
import { noStatisticsOfSealedValues } from "./migrations/0032-no-statistics-of-sealed-values.js";
import { watchedTransfers } from "./migrations/0033-watched-transfers.js";
import { auditLog } from "./migrations/0035-audit-log.js";
import { keyring } from "./migrations/0037-keyring.js";
import { sealRequests } from "./migrations/0038-seal-requests.js";
import { listOrderIndexes } from "./migrations/0039-list-order-indexes.js";
import { userOwnedRows } from "./migrations/0040-user-owned-rows.js";
import type { Migration } from "./migrations/migration.js";

export type { Migration };

/**
 * Versioned schema changes, applied in order at start. Append new migrations; never edit one
 * that has shipped. The same SQL runs on PGlite and PostgreSQL.
 */
export const migrations: Migration[] = [
  foundation,
  wallets,
  policies,
  webhooks,
  balances,
  ipAllowlists,
  oauth2,
  otp,
  authProxy,
  verifiedContacts,
  provenIdentities,
  rateLimits,
  passkeyRelyingParty,
  activityClaims,
  secrets,
  sessionProfiles,
  mfaPolicies,
  identityLookups,
  selfAssertedIdentities,
  boundProofs,
  spentOidcTokens,
  rateLimitSweep,
  proofSweep,
  sendTransactions,
  sentTransactionHistory,
  velocityControls,
  claimHolders,
  noStatisticsOfSealedValues,
  watchedTransfers,
  auditLog,
  keyring,
  sealRequests,
  listOrderIndexes,
  userOwnedRows,
];

/** The newest schema version this code knows. */
export const latestMigration = (): number => Math.max(...migrations.map((m) => m.version));

/** The store was migrated by a newer Strongroom: this code would misread tables it does not know the shape of. */
export class SchemaTooNewError extends Error {
  constructor(
    readonly storeVersion: number,
    readonly codeVersion: number,
  ) {
    super(
      `the database schema is at migration ${storeVersion} (schema_migrations), newer than this Strongroom knows (its latest migration is ${codeVersion}): ` +
        "a newer version of Strongroom migrated this store; run that version (or restore a backup taken before the upgrade)",
    );
    this.name = "SchemaTooNewError";
  }
}

/** What `migrate` found and did. */
export interface MigrationReport {
  /** Migrations applied by this start (none when the store was up to date). */
  applied: Migration[];
  /** The schema version the store is at now. */
  version: number;
}

/**
 * Applies every migration not yet applied, each in its own transaction, under an advisory lock. A store already
 * migrated past the newest migration this code knows is refused before anything is applied.
 */
export async function migrate(db: Database): Promise<MigrationReport> {
  const [table] = await db.query<{ present: boolean }>("SELECT to_regclass('schema_migrations') IS NOT NULL AS present");
  if (!table?.present)
    await db.transaction(async (tx) => {
      // Processes starting at once on an empty PostgreSQL would each create it, and all but one fail on the catalog's
      // unique index (IF NOT EXISTS looks before it inserts): they take turns, as for each migration.
      await tx.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
      await tx.query(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
      );
    });
  const latest = latestMigration();
  const [newest] = await db.query<{ version: number | null }>("SELECT max(version) AS version FROM schema_migrations");
  if (newest?.version != null && newest.version > latest) throw new SchemaTooNewError(newest.version, latest);
  const applied: Migration[] = [];
  // Usually every migration is applied already: one read instead of a transaction (and, on PGlite, a sync) each.
  const present = new Set((await db.query<{ version: number }>("SELECT version FROM schema_migrations")).map((r) => Number(r.version)));
  for (const migration of migrations.filter((m) => !present.has(m.version))) {
    const ran = await db.transaction(async (tx) => {
      // Several processes may start at once against one PostgreSQL; one applies, the others wait.
      await tx.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
      const done = await tx.query("SELECT 1 FROM schema_migrations WHERE version = $1", [migration.version]);
      if (done.length > 0) return false;
      await tx.exec(migration.sql);
      await tx.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [migration.version, migration.name]);
      return true;
    });
    if (ran) applied.push(migration);
  }
  return { applied, version: latest };
}
