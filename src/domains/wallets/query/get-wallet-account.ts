import { Type } from "@sinclair/typebox";
import { invalidArgument, notFound } from "../../../errors.js";
import { requireWallet } from "../../../records/wallet.js";
import { walletAccountRecord, type WalletAccountRow, WalletAccountRecord } from "../../../records/wallet-account.js";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";

export const getWalletAccount = defineQuery({
  operation: "get_wallet_account",
  sdkMethod: "getWalletAccount",
  summary: "One account of a wallet, by address or by path",
  body: Type.Object({ organizationId: Id(), walletId: Id(), address: Type.Optional(Type.String()), path: Type.Optional(Type.String()) }),
  result: Type.Object({ account: WalletAccountRecord }),
  async execute({ organization, services }, { walletId, address, path }) {
    await requireWallet(services.db, organization.id, walletId);
    if (!address && !path) {
      throw invalidArgument("address or path: one of them is required to pick the account", [
        { field: "address", description: "address or path is required" },
      ]);
    }
    const [row] = await services.db.query<WalletAccountRow>(
      `SELECT * FROM wallet_accounts WHERE wallet_id = $1 AND ${address ? "address = $2" : "path = $2"} ORDER BY seq LIMIT 1`,
      [walletId, address ?? path],
    );
    if (!row)
      throw notFound(
        `${address ? "address" : "path"}: wallet ${walletId} has no account with ${address ? "address" : "path"} ${JSON.stringify(address ?? path)}`,
        "WALLET_ACCOUNT_NOT_FOUND",
      );
    return { account: walletAccountRecord(row) };
  },
});
