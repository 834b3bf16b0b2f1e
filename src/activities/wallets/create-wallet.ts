import { defineActivity } from "../definition.js";
import { checkMnemonicLength, insertWallet, WalletParams } from "../shared/wallets.js";
import { generateMnemonic } from "../../crypto/mnemonic.js";

export const createWallet = defineActivity({
  operation: "create_wallet",
  type: "ACTIVITY_TYPE_CREATE_WALLET",
  intentKey: "createWalletIntent",
  resultKey: "createWalletResult",
  sdkMethod: "createWallet",
  summary: "Create an HD wallet from a new BIP-39 mnemonic, with its first accounts",
  resource: "WALLET",
  action: "CREATE",
  parameters: WalletParams,
  async execute({ tx, organization, now, services }, { walletName, accounts, mnemonicLength }) {
    const secret = generateMnemonic(checkMnemonicLength(mnemonicLength, "mnemonicLength"));
    return insertWallet(tx, services, { organizationId: organization.id, name: walletName, secret, imported: false, now }, accounts, {
      name: "walletName",
      accounts: "accounts",
    });
  },
});
