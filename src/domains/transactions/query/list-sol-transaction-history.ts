import { Type } from "@sinclair/typebox";
import { defineQuery } from "../../../operations/query-definition.js";
import { Id } from "../../../schema/common.js";
import { assetsOf, displayAmount } from "../assets.js";
import {
  HistoryBlock,
  HistoryFee,
  HistoryTransfer,
  HistoryTurnkey,
  PageInfo,
  PaginationOptions,
  historyPage,
  rfc3339,
} from "../history.js";
import { readSolanaWire, signersOf, systemTransfers } from "../solana-message.js";

export const listSolTransactionHistory = defineQuery({
  operation: "list_sol_transaction_history",
  sdkMethod: "listSolTransactionHistory",
  summary: "An address's Solana transactions that Strongroom sent, most recent first, with their SOL transfers",
  body: Type.Object({
    organizationId: Id(),
    address: Type.String({ minLength: 1 }),
    caip2: Type.String({ minLength: 1 }),
    paginationOptions: PaginationOptions,
  }),
  result: Type.Object({
    transactions: Type.Array(
      Type.Object({
        signature: Type.String(),
        block: HistoryBlock,
        status: Type.String(),
        origin: Type.String(),
        feePayer: Type.String(),
        signers: Type.Array(Type.Object({ address: Type.String(), writable: Type.Boolean() })),
        fee: HistoryFee,
        transfers: Type.Array(HistoryTransfer),
        turnkey: Type.Optional(HistoryTurnkey),
      }),
    ),
    pageInfo: PageInfo,
  }),
  async execute({ services, organization }, { address, caip2, paginationOptions }) {
    const chain = services.chains.solana(caip2);
    const native = assetsOf(services.chains.settings.assets, chain.caip2)[0]!;
    const asset = { caip19: native.caip19, symbol: native.symbol, name: native.name, decimals: native.decimals };
    const { rows, pageInfo } = await historyPage(services.db, organization.id, chain.caip2, address, paginationOptions);
    return {
      transactions: rows.map((row) => {
        const wire = readSolanaWire(Buffer.from(row.signed_transaction!, "base64").toString("hex"));
        const transfers =
          row.status === "INCLUDED"
            ? systemTransfers(wire)
                .filter((t) => t.from === address || t.to === address)
                .map((t) => ({
                  direction: t.from === address ? "OUT" : "IN",
                  asset,
                  amount: t.lamports.toString(),
                  counterparty: t.from === address ? t.to : t.from,
                  display: { crypto: displayAmount(t.lamports, native.decimals) },
                }))
            : [];
        return {
          signature: row.tx_hash,
          // A slot's block hash is not read (the slot is the block's number).
          block: { number: row.block_number, hash: row.block_hash ?? "", timestamp: rfc3339(row.block_timestamp) },
          status: "CONFIRMED",
          origin: "TURNKEY",
          feePayer: wire.requiredSigners[0]!,
          signers: signersOf(wire),
          fee: { amount: row.fee ?? "0", caip19: native.caip19 },
          transfers,
          turnkey: {
            sponsored: false,
            ...(row.fingerprint ? { activityFingerprint: row.fingerprint } : {}),
            submittedAt: rfc3339(row.created_at),
          },
        };
      }),
      pageInfo,
    };
  },
});
