import type { Domain } from "../../operations/domain.js";
import { createWallet } from "./submit/create-wallet.js";
import { createWalletAccounts } from "./submit/create-wallet-accounts.js";
import { deleteWalletAccounts } from "./submit/delete-wallet-accounts.js";
import { deleteWallets } from "./submit/delete-wallets.js";
import { exportWallet } from "./submit/export-wallet.js";
import { exportWalletAccount } from "./submit/export-wallet-account.js";
import { getWallet } from "./query/get-wallet.js";
import { getWalletAccount } from "./query/get-wallet-account.js";
import { importWallet } from "./submit/import-wallet.js";
import { initImportWallet } from "./submit/init-import-wallet.js";
import { listWalletAccounts } from "./query/list-wallet-accounts.js";
import { listWallets } from "./query/list-wallets.js";
import { updateWallet } from "./submit/update-wallet.js";

export const walletsDomain: Domain = {
  name: "wallets",
  activities: [
    createWallet,
    createWalletAccounts,
    updateWallet,
    deleteWallets,
    deleteWalletAccounts,
    exportWallet,
    exportWalletAccount,
    initImportWallet,
    importWallet,
  ],
  queries: [getWallet, listWallets, getWalletAccount, listWalletAccounts],
};
