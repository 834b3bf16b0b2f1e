import { Type } from "@sinclair/typebox";
import { requireWallet } from "../../records/wallets.js";
import { Id } from "../../schema/common.js";
import { defineActivity } from "../definition.js";
import { insertWalletAccounts, openWalletSeed, WalletAccounts } from "../shared/wallets.js";

export const createWalletAccounts = defineActivity({
  operation: "create_wallet_accounts",
  type: "ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS",
  intentKey: "createWalletAccountsIntent",
  resultKey: "createWalletAccountsResult",
  sdkMethod: "createWalletAccounts",
  summary: "Derive more accounts of a wallet (or, with persist: false, only preview their addresses)",
  resource: "WALLET",
  action: "CREATE",
  parameters: Type.Object({ walletId: Id(), accounts: WalletAccounts, persist: Type.Optional(Type.Boolean()) }),
  async execute({ tx, organization, now, services }, { walletId, accounts, persist }) {
    const wallet = await requireWallet(tx, organization.id, walletId);
    const seed = openWalletSeed(services, wallet);
    const addresses = await insertWalletAccounts(tx, services, { id: wallet.id, organizationId: organization.id, seed }, accounts, now, "accounts", persist ?? true);
    if (persist ?? true) await tx.query("UPDATE wallets SET updated_at = $2 WHERE id = $1", [wallet.id, now]);
    return { addresses };
  },
});
