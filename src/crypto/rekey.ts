import type { Queryable } from "../store/database.js";
import type { KeyEncryptionKey } from "./key-encryption.js";

/**
 * Every column holding a secret sealed under the key-encryption key, with the additional data each row's
 * secret was sealed with (the owner's identity; see the `kek.seal` calls). A sealed column missing here would
 * be left under the old key by `rekey`: test/cli/rekey.test.ts compares this list with every column of the
 * schema whose name starts with `sealed`.
 */
export interface SealedColumn {
  table: string;
  column: string;
  /** The columns naming a row (its primary key). */
  key: string[];
  /** The additional data the row's secret is bound to. */
  context(row: Record<string, string>): string;
}

export const SEALED_COLUMNS: SealedColumn[] = [
  { table: "server_secrets", column: "sealed", key: ["name"], context: (r) => `server-key:${r.name}` },
  { table: "wallets", column: "sealed_mnemonic", key: ["id"], context: (r) => `wallet:${r.id}` },
  { table: "wallet_accounts", column: "sealed_private_key", key: ["id"], context: (r) => `wallet-account:${r.id}` },
  { table: "private_keys", column: "sealed_private_key", key: ["id"], context: (r) => `private-key:${r.id}` },
  { table: "import_keys", column: "sealed_private_key", key: ["user_id", "kind"], context: (r) => `import-key:${r.user_id}:${r.kind}` },
  { table: "oauth2_credentials", column: "sealed_client_secret", key: ["id"], context: (r) => `oauth2-client-secret:${r.id}` },
  { table: "otp_codes", column: "sealed_secret", key: ["id"], context: (r) => `otp:${r.id}` },
  { table: "auth_proxy_configs", column: "sealed_private_key", key: ["id"], context: (r) => `auth-proxy-key:${r.id}` },
  {
    table: "secret_import_keys",
    column: "sealed_private_key",
    key: ["target_public_key"],
    context: (r) => `secret-import-key:${r.target_public_key}`,
  },
  { table: "secrets", column: "sealed_value", key: ["id"], context: (r) => `secret:${r.id}` },
  // Only while an activity holding bearer secrets waits for consensus (src/domains/activities/secret-fields.ts).
  { table: "activities", column: "sealed_secret_params", key: ["id"], context: (r) => `activity-secret-params:${r.id}` },
];

/** Rows re-sealed per column. */
export type RekeyCounts = Record<string, number>;

/**
 * Opens every sealed secret with `from` and seals it again with `to`, in the caller's transaction: all of them
 * or (a secret `from` cannot open, any failure) none. Rows are locked as they are read.
 */
export async function resealEverything(tx: Queryable, from: KeyEncryptionKey, to: KeyEncryptionKey): Promise<RekeyCounts> {
  const counts: RekeyCounts = {};
  for (const sealed of SEALED_COLUMNS) {
    const keyList = sealed.key.join(", ");
    const rows = await tx.query<Record<string, string>>(
      `SELECT ${keyList}, ${sealed.column} AS sealed FROM ${sealed.table} WHERE ${sealed.column} IS NOT NULL ORDER BY ${keyList} FOR UPDATE`,
    );
    const where = sealed.key.map((column, i) => `${column} = $${i + 2}`).join(" AND ");
    for (const row of rows) {
      const context = sealed.context(row);
      let plaintext: Uint8Array;
      try {
        plaintext = from.open(row.sealed!, context);
      } catch {
        throw new Error(`${sealed.table}.${sealed.column} (${context}) cannot be opened with the current key: nothing was changed`);
      }
      await tx.query(`UPDATE ${sealed.table} SET ${sealed.column} = $1 WHERE ${where}`, [
        to.seal(plaintext, context),
        ...sealed.key.map((column) => row[column]),
      ]);
      plaintext.fill(0);
    }
    counts[`${sealed.table}.${sealed.column}`] = rows.length;
  }
  return counts;
}
