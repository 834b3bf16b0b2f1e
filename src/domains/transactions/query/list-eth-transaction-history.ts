import { Type } from "@sinclair/typebox";
import { decodeFunctionData, erc20Abi, parseTransaction, type Hex, type TransactionSerialized } from "viem";
import { ApiError, GrpcCode } from "../../../errors.js";
import { defineQuery } from "../../../operations/query-definition.js";
import { Id } from "../../../schema/common.js";
import { assetsOf, displayAmount, type ChainAsset } from "../assets.js";
import { Caip2, EvmAddress } from "../evm-send.js";
import {
  HistoryBlock,
  HistoryFee,
  HistoryTransfer,
  HistoryTurnkey,
  PageInfo,
  PaginationOptions,
  historyPage,
  rfc3339,
  type HistoryRow,
} from "../history.js";

const assetOf = (asset: ChainAsset | undefined) =>
  asset ? { asset: { caip19: asset.caip19, symbol: asset.symbol, name: asset.name, decimals: asset.decimals } } : {};

function transfer(direction: "IN" | "OUT", amount: bigint, counterparty: string, asset: ChainAsset | undefined) {
  return {
    direction,
    ...assetOf(asset),
    amount: amount.toString(),
    counterparty,
    ...(asset ? { display: { crypto: displayAmount(amount, asset.decimals) } } : {}),
  };
}

export const listEthTransactionHistory = defineQuery({
  operation: "list_eth_transaction_history",
  sdkMethod: "listEthTransactionHistory",
  summary: "An address's EVM transactions, most recent first: those Strongroom sent, and the transfers the block watcher saw",
  body: Type.Object({
    organizationId: Id(),
    address: EvmAddress("A wallet account address"),
    caip2: Caip2,
    paginationOptions: PaginationOptions,
  }),
  result: Type.Object({
    transactions: Type.Array(
      Type.Object({
        transactionHash: Type.String(),
        block: HistoryBlock,
        status: Type.String(),
        origin: Type.String(),
        from: Type.String(),
        to: Type.Optional(Type.String()),
        fee: HistoryFee,
        transfers: Type.Array(HistoryTransfer),
        turnkey: Type.Optional(HistoryTurnkey),
      }),
    ),
    pageInfo: PageInfo,
  }),
  async execute({ services, organization }, { address, caip2, paginationOptions }) {
    const chain = await services.chains.evm(caip2);
    const assets = assetsOf(services.chains.settings.assets, chain.caip2);
    const native = assets[0]!;
    const { rows, pageInfo } = await historyPage(services.db, organization.id, chain.caip2, address, paginationOptions);
    let finalized: bigint | undefined;
    try {
      finalized = rows.length > 0 ? (await chain.client.getBlock({ blockTag: "finalized" })).number : undefined;
    } catch {
      finalized = undefined; // a node without finality tags: CONFIRMED until the watcher says otherwise
    }
    const statusOf = (row: HistoryRow) =>
      row.finalized === true || (finalized !== undefined && BigInt(row.block_number) <= finalized) ? "FINALIZED" : "CONFIRMED";
    const transactions = [];
    for (const row of rows) {
      const block = { number: row.block_number, hash: row.block_hash ?? "", timestamp: rfc3339(row.block_timestamp) };
      if (row.kind === "sent") {
        const sent = parseTransaction(row.signed_transaction as TransactionSerialized);
        const to = sent.to ?? undefined;
        const transfers = [];
        if (row.status === "INCLUDED") {
          if ((sent.value ?? 0n) > 0n && to) transfers.push(transfer("OUT", sent.value!, to, native));
          if (to && sent.data?.startsWith("0xa9059cbb")) {
            try {
              const { args } = decodeFunctionData({ abi: erc20Abi, data: sent.data });
              const [recipient, amount] = args as [Hex, bigint];
              transfers.push(
                transfer(
                  "OUT",
                  amount,
                  recipient,
                  assets.find((a) => a.address?.toLowerCase() === to.toLowerCase()),
                ),
              );
            } catch {
              // not an ERC-20 transfer after all
            }
          }
        }
        transactions.push({
          transactionHash: row.tx_hash,
          block,
          status: statusOf(row),
          origin: "TURNKEY",
          from: row.from_address!,
          ...(to ? { to } : {}),
          fee: { amount: row.fee ?? "0", caip19: native.caip19 },
          transfers,
          turnkey: {
            sponsored: false,
            ...(row.fingerprint ? { activityFingerprint: row.fingerprint } : {}),
            submittedAt: rfc3339(row.created_at),
          },
        });
        continue;
      }
      // Seen by the block watcher: the transaction's sender, recipient and fee from the node.
      let seen;
      try {
        const [transaction, receipt] = await Promise.all([
          chain.client.getTransaction({ hash: row.tx_hash as Hex }),
          chain.client.getTransactionReceipt({ hash: row.tx_hash as Hex }),
        ]);
        seen = { from: transaction.from, to: transaction.to ?? undefined, fee: receipt.gasUsed * receipt.effectiveGasPrice };
      } catch (error) {
        throw new ApiError(
          GrpcCode.UNAVAILABLE,
          `caip2: the node of ${chain.caip2} did not answer for ${row.tx_hash}: ${(error as Error).message.split("\n")[0]}`,
          "CHAIN_UNAVAILABLE",
        );
      }
      const deposit = row.operation === "deposit";
      transactions.push({
        transactionHash: row.tx_hash,
        block,
        status: statusOf(row),
        origin: "EXTERNAL",
        from: seen.from,
        ...(seen.to ? { to: seen.to } : {}),
        fee: { amount: seen.fee.toString(), caip19: native.caip19 },
        transfers: [transfer(deposit ? "IN" : "OUT", BigInt(row.amount!), (deposit ? seen.from : seen.to) ?? "", native)],
      });
    }
    return { transactions, pageInfo };
  },
});
