import type { Database } from "./database.js";
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

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

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
];

/** Applies every migration not yet applied, each in its own transaction, under an advisory lock. */
export async function migrate(db: Database): Promise<void> {
  await db.query(
    "CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
  );
  for (const migration of migrations) {
    await db.transaction(async (tx) => {
      // Several processes may start at once against one PostgreSQL; one applies, the others wait.
      await tx.query("SELECT pg_advisory_xact_lock(7163453)");
      const done = await tx.query("SELECT 1 FROM schema_migrations WHERE version = $1", [migration.version]);
      if (done.length > 0) return;
      await tx.exec(migration.sql);
      await tx.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [migration.version, migration.name]);
    });
  }
}
