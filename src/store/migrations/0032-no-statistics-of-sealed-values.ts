import type { Migration } from "./migration.js";

/** Every column holding a value sealed under the key-encryption key (src/crypto/rekey.ts lists the same). */
const SEALED = [
  ["server_secrets", "sealed"],
  ["wallets", "sealed_mnemonic"],
  ["wallet_accounts", "sealed_private_key"],
  ["private_keys", "sealed_private_key"],
  ["import_keys", "sealed_private_key"],
  ["oauth2_credentials", "sealed_client_secret"],
  ["otp_codes", "sealed_secret"],
  ["auth_proxy_configs", "sealed_private_key"],
  ["secret_import_keys", "sealed_private_key"],
  ["secrets", "sealed_value"],
  ["activities", "sealed_secret_params"],
] as const;

export const noStatisticsOfSealedValues: Migration = {
  version: 32,
  name: "no statistics of sealed values",
  sql: `
-- ANALYZE (PostgreSQL's autovacuum runs it) copies sampled column values into pg_statistic: sealed secrets would
-- live on there, under whatever key sealed them, after a rekey re-sealed the rows. A statistics target of 0 keeps
-- them out; "TYPE text" (the type they already have: nothing is rewritten) drops the statistics gathered so far.
-- A new sealed column does the same in its migration (test/cli/rekey.test.ts checks).
${SEALED.map(([table, column]) => `ALTER TABLE ${table} ALTER COLUMN ${column} SET STATISTICS 0, ALTER COLUMN ${column} TYPE text;`).join("\n")}
`,
};
