import { Type } from "@sinclair/typebox";
import { requireWallet, type WalletRow } from "../../../records/wallet.js";
import { walletAccountRecord, type WalletAccountRow, WalletAccountRecord } from "../../../records/wallet-account.js";
import { Id, Pagination } from "../../../schema/common.js";
import { pageLimit } from "../../../schema/pagination.js";
import { defineQuery } from "../../../operations/query-definition.js";

export const listWalletAccounts = defineQuery({
  operation: "list_wallet_accounts",
  sdkMethod: "getWalletAccounts",
  summary: "Accounts of one wallet or of the whole organization, oldest first; all of them unless paginationOptions is given",
  body: Type.Object({
    organizationId: Id(),
    walletId: Type.Optional(Id()),
    includeWalletDetails: Type.Optional(Type.Boolean()),
    paginationOptions: Type.Optional(Pagination),
  }),
  result: Type.Object({ accounts: Type.Array(WalletAccountRecord) }),
  async execute({ organization, services }, { walletId, includeWalletDetails, paginationOptions }) {
    if (walletId) await requireWallet(services.db, organization.id, walletId);
    const params: unknown[] = [organization.id];
    let sql = "SELECT * FROM wallet_accounts a WHERE a.organization_id = $1";
    if (walletId) {
      params.push(walletId);
      sql += ` AND a.wallet_id = $${params.length}`;
    }
    if (paginationOptions?.after) {
      params.push(paginationOptions.after);
      sql += ` AND a.seq > (SELECT seq FROM wallet_accounts WHERE id = $${params.length})`;
    } else if (paginationOptions?.before) {
      params.push(paginationOptions.before);
      sql += ` AND a.seq < (SELECT seq FROM wallet_accounts WHERE id = $${params.length})`;
    }
    sql += " ORDER BY a.seq";
    if (paginationOptions) {
      params.push(pageLimit(paginationOptions));
      sql += ` LIMIT $${params.length}`;
    }
    const rows = await services.db.query<WalletAccountRow>(sql, params);
    const wallets = new Map<string, WalletRow>();
    if (includeWalletDetails && rows.length > 0) {
      const walletRows = await services.db.query<WalletRow>("SELECT * FROM wallets WHERE id = ANY($1::text[])", [
        [...new Set(rows.map((r) => r.wallet_id))],
      ]);
      for (const wallet of walletRows) wallets.set(wallet.id, wallet);
    }
    return { accounts: rows.map((row) => walletAccountRecord(row, includeWalletDetails ? wallets.get(row.wallet_id) : undefined)) };
  },
});
