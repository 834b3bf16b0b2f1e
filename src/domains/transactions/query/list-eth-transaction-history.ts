import { Type } from "@sinclair/typebox";
import type { Hex, TransactionSerialized } from "viem";
import type { EvmChain } from "../../../chains/chains.js";
import { viem } from "../../../crypto/chain-libraries.js";
import { ApiError, GrpcCode } from "../../../errors.js";
import { defineQuery } from "../../../operations/query-definition.js";
import { assetsOf, type ChainAsset } from "../assets.js";
import { Caip2, EvmAddress } from "../evm-send.js";
import {
  HistoryBlock,
  HistoryFee,
  HistoryTransfer,
  HistoryTurnkey,
  historyBlock,
  historyPage,
  historyQuerySchemas,
  historyTransfer,
  sentByStrongroom,
  type HistoryRow,
} from "../history.js";

const { body, result } = historyQuerySchemas(
  EvmAddress("A wallet account address"),
  Caip2,
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
);

/** What a transaction Strongroom sent moved out of the address: its value, and an ERC-20 `transfer` it calls. */
function sentTransfers(row: HistoryRow, assets: ChainAsset[]) {
  const sent = viem().parseTransaction(row.signed_transaction as TransactionSerialized);
  const to = sent.to ?? undefined;
  const transfers = [];
  if (row.status === "INCLUDED" && to) {
    if ((sent.value ?? 0n) > 0n) transfers.push(historyTransfer("OUT", sent.value!, to, assets[0]));
    if (sent.data?.startsWith("0xa9059cbb")) {
      try {
        const { args } = viem().decodeFunctionData({ abi: viem().erc20Abi, data: sent.data });
        const [recipient, amount] = args as [Hex, bigint];
        transfers.push(
          historyTransfer(
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
  return { to, transfers };
}

/** A transaction the block watcher saw: its sender, recipient and fee, read from the node. */
async function seenTransaction(chain: EvmChain, hash: string) {
  try {
    const [transaction, receipt] = await Promise.all([
      chain.client.getTransaction({ hash: hash as Hex }),
      chain.client.getTransactionReceipt({ hash: hash as Hex }),
    ]);
    return { from: transaction.from, to: transaction.to ?? undefined, fee: receipt.gasUsed * receipt.effectiveGasPrice };
  } catch (error) {
    throw new ApiError(
      GrpcCode.UNAVAILABLE,
      `caip2: the node of ${chain.caip2} did not answer for ${hash}: ${(error as Error).message.split("\n")[0]}`,
      "CHAIN_UNAVAILABLE",
    );
  }
}

export const listEthTransactionHistory = defineQuery({
  operation: "list_eth_transaction_history",
  sdkMethod: "listEthTransactionHistory",
  summary:
    "An address's EVM transactions, most recent first: those Strongroom sent, and the native and listed-token transfers the block watcher saw",
  body,
  result,
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
      const common = { transactionHash: row.tx_hash, block: historyBlock(row), status: statusOf(row) };
      if (row.kind === "sent") {
        const { to, transfers } = sentTransfers(row, assets);
        transactions.push({
          ...common,
          origin: "TURNKEY",
          from: row.from_address!,
          ...(to ? { to } : {}),
          fee: { amount: row.fee ?? "0", caip19: native.caip19 },
          transfers,
          turnkey: sentByStrongroom(row),
        });
        continue;
      }
      const seen = await seenTransaction(chain, row.tx_hash);
      // Seen arriving from another of the organization's addresses, sent by Strongroom: its origin is Strongroom.
      const sentHere = row.from_address !== null;
      transactions.push({
        ...common,
        origin: sentHere ? "TURNKEY" : "EXTERNAL",
        from: seen.from,
        ...(seen.to ? { to: seen.to } : {}),
        fee: { amount: seen.fee.toString(), caip19: native.caip19 },
        transfers: row.transfers!.map((t) => {
          const deposit = t.operation === "deposit";
          // Recorded before the watcher kept the other party: the transaction's own sender or recipient.
          const counterparty = t.counterparty ?? (deposit ? seen.from : seen.to) ?? "";
          const asset = t.asset ? assets.find((a) => a.address?.toLowerCase() === t.asset) : native;
          return historyTransfer(deposit ? "IN" : "OUT", BigInt(t.amount), counterparty, asset);
        }),
        ...(sentHere ? { turnkey: sentByStrongroom(row) } : {}),
      });
    }
    return { transactions, pageInfo };
  },
});
