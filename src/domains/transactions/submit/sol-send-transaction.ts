import { Type } from "@sinclair/typebox";
import { defineSolanaSend, SOLANA_SEND_FIELDS } from "../solana-send.js";
import { solSendTransactionV1 } from "./sol-send-transaction-v1.js";

export const solSendTransaction = defineSolanaSend({
  type: "ACTIVITY_TYPE_SOL_SEND_TRANSACTION_V2",
  intentKey: "solSendTransactionIntentV2",
  resultKey: "solSendTransactionResultV2",
  summary: "Sign (with one or more signers, in order) and send a Solana transaction on a configured cluster; blockhash filled",
  parameters: Type.Object({
    ...SOLANA_SEND_FIELDS,
    signWiths: Type.Array(Type.String({ minLength: 1 }), {
      minItems: 1,
      maxItems: 16,
      description: "Signer addresses, in the transaction's order",
    }),
  }),
  signers: (params) => params.signWiths,
  signersField: "signWiths",
  earlierVersions: [solSendTransactionV1],
});
