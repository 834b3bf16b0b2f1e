import { Type } from "@sinclair/typebox";
import { defineSolanaSend, SOLANA_SEND_FIELDS } from "../solana-send.js";

/** ACTIVITY_TYPE_SOL_SEND_TRANSACTION: one signer; served at sol_send_transaction beside V2. */
export const solSendTransactionV1 = defineSolanaSend({
  type: "ACTIVITY_TYPE_SOL_SEND_TRANSACTION",
  intentKey: "solSendTransactionIntent",
  resultKey: "solSendTransactionResult",
  summary: "Sign and send a Solana transaction (blockhash filled when left out) on a configured cluster",
  parameters: Type.Object({
    ...SOLANA_SEND_FIELDS,
    signWith: Type.String({ minLength: 1, description: "A wallet account or private key address to sign with" }),
  }),
  signers: (params) => [params.signWith],
  signersField: "signWith",
});
