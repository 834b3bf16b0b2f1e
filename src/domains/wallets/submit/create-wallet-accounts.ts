import { Type } from "@sinclair/typebox";
import { findWallet, requireWallet } from "../../../records/wallet.js";
import { Id } from "../../../schema/common.js";
import { defineActivity } from "../../../operations/activity-definition.js";
import { mustExist } from "../../references.js";
import {
  checkWalletAccounts,
  deriveAccounts,
  insertWalletAccounts,
  openWalletSeed,
  WalletAccounts,
  type DerivedAccount,
} from "../wallets.js";

export const createWalletAccounts = defineActivity({
  operation: "create_wallet_accounts",
  type: "ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS",
  intentKey: "createWalletAccountsIntent",
  resultKey: "createWalletAccountsResult",
  result: Type.Object({ addresses: Type.Array(Type.String()) }),
  sdkMethod: "createWalletAccounts",
  summary: "Derive more accounts of a wallet (or, with persist: false, only preview their addresses)",
  resource: "WALLET",
  action: "CREATE",
  policyTarget: { wallet: "walletId" },
  parameters: Type.Object({ walletId: Id(), accounts: WalletAccounts, persist: Type.Optional(Type.Boolean()) }),
  async validate({ db, organization }, { walletId, accounts }) {
    await mustExist(requireWallet(db, organization.id, walletId));
    checkWalletAccounts(accounts, "accounts");
  },
  // Derived from the committed wallet before the transaction; a wallet deleted since is left to execute's refusal.
  async prepare(
    services,
    { walletId, accounts },
    organization,
  ): Promise<{ sealedMnemonic: string; accounts: DerivedAccount[] } | undefined> {
    const wallet = await findWallet(services.db, organization.id, walletId);
    if (!wallet) return undefined;
    return {
      sealedMnemonic: wallet.sealed_mnemonic,
      accounts: await deriveAccounts(await openWalletSeed(services, wallet), accounts, "accounts"),
    };
  },
  async execute({ tx, organization, now, services }, { walletId, accounts, persist }, prepared) {
    const wallet = await requireWallet(tx, organization.id, walletId);
    // A wallet's secret never changes; should the wallet have appeared only since, derive now.
    const derived =
      prepared?.sealedMnemonic === wallet.sealed_mnemonic
        ? prepared.accounts
        : await deriveAccounts(await openWalletSeed(services, wallet), accounts, "accounts");
    const addresses = await insertWalletAccounts(
      tx,
      services,
      { id: wallet.id, organizationId: organization.id },
      accounts,
      derived,
      now,
      "accounts",
      { persist: persist ?? true },
    );
    if (persist ?? true) await tx.query("UPDATE wallets SET updated_at = $2 WHERE id = $1", [wallet.id, now]);
    return { addresses };
  },
});
