import { Type } from "@sinclair/typebox";
import { defineQuery } from "../../../operations/query-definition.js";
import { assetsOf } from "../assets.js";
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
} from "../history.js";
import { readSolanaWire, signersOf, systemTransfers } from "../solana-message.js";

const { body, result } = historyQuerySchemas(
  Type.String({ minLength: 1 }),
  Type.String({ minLength: 1 }),
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
);

export const listSolTransactionHistory = defineQuery({
  operation: "list_sol_transaction_history",
  sdkMethod: "listSolTransactionHistory",
  summary: "An address's Solana transactions that Strongroom sent, most recent first, with their SOL transfers",
  body,
  result,
  async execute({ services, organization }, { address, caip2, paginationOptions }) {
    const chain = services.chains.solana(caip2);
    const native = assetsOf(services.chains.settings.assets, chain.caip2)[0]!;
    const { rows, pageInfo } = await historyPage(services.db, organization.id, chain.caip2, address, paginationOptions);
    return {
      transactions: rows.map((row) => {
        const wire = readSolanaWire(Buffer.from(row.signed_transaction!, "base64").toString("hex"));
        const transfers =
          row.status === "INCLUDED"
            ? systemTransfers(wire)
                .filter((t) => t.from === address || t.to === address)
                .map((t) =>
                  t.from === address ? historyTransfer("OUT", t.lamports, t.to, native) : historyTransfer("IN", t.lamports, t.from, native),
                )
            : [];
        return {
          signature: row.tx_hash,
          // A slot's block hash is not read (the slot is the block's number).
          block: historyBlock(row),
          status: "CONFIRMED",
          origin: "TURNKEY",
          feePayer: wire.requiredSigners[0]!,
          signers: signersOf(wire),
          fee: { amount: row.fee ?? "0", caip19: native.caip19 },
          transfers,
          turnkey: sentByStrongroom(row),
        };
      }),
      pageInfo,
    };
  },
});
