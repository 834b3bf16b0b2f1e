import type { Domain } from "../../operations/domain.js";
import { getGasUsage } from "./query/get-gas-usage.js";
import { getWalletAddressBalances } from "./query/get-wallet-address-balances.js";
import { listEthTransactionHistory } from "./query/list-eth-transaction-history.js";
import { listSolTransactionHistory } from "./query/list-sol-transaction-history.js";
import { listSupportedAssets } from "./query/list-supported-assets.js";
import { getNonces } from "./query/get-nonces.js";
import { getSendTransactionStatus } from "./query/get-send-transaction-status.js";
import { ethSendRawTransaction } from "./submit/eth-send-raw-transaction.js";
import { ethSendTransaction } from "./submit/eth-send-transaction.js";
import { solSendTransaction } from "./submit/sol-send-transaction.js";

/** Sending transactions on the chains the operator configures, and tracking them (broadcaster.ts). */
export const transactionsDomain: Domain = {
  name: "transactions",
  activities: [ethSendTransaction, ethSendRawTransaction, solSendTransaction],
  queries: [
    getSendTransactionStatus,
    getNonces,
    getGasUsage,
    getWalletAddressBalances,
    listSupportedAssets,
    listEthTransactionHistory,
    listSolTransactionHistory,
  ],
};
