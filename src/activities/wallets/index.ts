import type { ActivityDefinition } from "../definition.js";
import { createWallet } from "./create-wallet.js";
import { createWalletAccounts } from "./create-wallet-accounts.js";
import { deleteWalletAccounts } from "./delete-wallet-accounts.js";
import { deleteWallets } from "./delete-wallets.js";
import { exportWallet } from "./export-wallet.js";
import { exportWalletAccount } from "./export-wallet-account.js";
import { importWallet } from "./import-wallet.js";
import { initImportWallet } from "./init-import-wallet.js";
import { updateWallet } from "./update-wallet.js";

export const walletActivities: ActivityDefinition[] = [
  createWallet,
  createWalletAccounts,
  updateWallet,
  deleteWallets,
  deleteWalletAccounts,
  exportWallet,
  exportWalletAccount,
  initImportWallet,
  importWallet,
];
