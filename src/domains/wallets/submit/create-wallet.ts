import { defineActivity } from "../../../operations/activity-definition.js";
import { insertWallet, prepareNewWallet, WalletParams, checkNewWallet } from "../wallets.js";
import { WalletResult } from "../../../records/wallet.js";

export const createWallet = defineActivity({
  operation: "create_wallet",
  type: "ACTIVITY_TYPE_CREATE_WALLET",
  intentKey: "createWalletIntent",
  resultKey: "createWalletResult",
  result: WalletResult,
  sdkMethod: "createWallet",
  summary: "Create an HD wallet from a new BIP-39 mnemonic, with its first accounts",
  resource: "WALLET",
  action: "CREATE",
  parameters: WalletParams,
  validate: async (_ctx, wallet) => checkNewWallet(wallet, { mnemonicLength: "mnemonicLength", accounts: "accounts" }),
  prepare: (_services, { accounts, mnemonicLength }) =>
    prepareNewWallet(mnemonicLength, accounts, { mnemonicLength: "mnemonicLength", accounts: "accounts" }),
  async execute({ tx, organization, now, services }, { walletName, accounts }, prepared) {
    return insertWallet(
      tx,
      services,
      { organizationId: organization.id, name: walletName, secret: prepared.secret, imported: false, now },
      accounts,
      prepared.accounts,
      {
        name: "walletName",
        accounts: "accounts",
      },
    );
  },
});
