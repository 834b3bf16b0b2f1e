import type { QueryDefinition } from "../definition.js";
import { getWallet } from "./get-wallet.js";
import { getWalletAccount } from "./get-wallet-account.js";
import { listWalletAccounts } from "./list-wallet-accounts.js";
import { listWallets } from "./list-wallets.js";

export const walletQueries: QueryDefinition[] = [getWallet, listWallets, getWalletAccount, listWalletAccounts];
