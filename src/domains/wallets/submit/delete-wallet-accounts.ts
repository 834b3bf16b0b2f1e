import { Type } from "@sinclair/typebox";
import { notFound } from "../../../errors.js";
import { Id, IdList } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { assertSafeToDelete } from "../export-rule.js";
import { requireWalletAccount } from "../../../records/wallet-account.js";
import { mustExist } from "../../references.js";

export const deleteWalletAccounts = defineActivity({
  operation: "delete_wallet_accounts",
  type: "ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS",
  intentKey: "deleteWalletAccountsIntent",
  resultKey: "deleteWalletAccountsResult",
  result: Type.Object({ walletAccountIds: IdList() }),
  sdkMethod: "deleteWalletAccounts",
  summary: "Delete wallet accounts; accounts whose key was never exported (alone or with their wallet) need deleteWithoutExport",
  resource: "WALLET",
  action: "DELETE",
  parameters: Type.Object({
    walletAccountIds: Type.Array(Id(), { minItems: 1, maxItems: 100 }),
    deleteWithoutExport: Type.Optional(Type.Boolean()),
  }),
  async validate({ db, organization }, { walletAccountIds }) {
    for (const [index, accountId] of walletAccountIds.entries())
      await mustExist(requireWalletAccount(db, organization.id, accountId, `walletAccountIds[${index}]`));
  },
  async execute({ tx, organization }, { walletAccountIds, deleteWithoutExport }) {
    const accounts = [];
    for (const [index, accountId] of walletAccountIds.entries()) {
      const [account] = await tx.query<{ id: string; exported: boolean; imported: boolean }>(
        `SELECT a.id, a.exported OR w.exported AS exported, w.imported FROM wallet_accounts a JOIN wallets w ON w.id = a.wallet_id
         WHERE a.id = $1 AND a.organization_id = $2`,
        [accountId, organization.id],
      );
      if (!account)
        throw notFound(
          `walletAccountIds[${index}]: no wallet account ${JSON.stringify(accountId)} in organization ${organization.id}`,
          "WALLET_ACCOUNT_NOT_FOUND",
        );
      accounts.push(account);
    }
    assertSafeToDelete(accounts, "wallet account(s)", deleteWithoutExport);
    await tx.query("DELETE FROM wallet_accounts WHERE id = ANY($1::text[]) AND organization_id = $2", [walletAccountIds, organization.id]);
    return { walletAccountIds };
  },
});
