import { Type } from "@sinclair/typebox";
import { defineActivity } from "../../../operations/activity-definition.js";
import { sentTransactionTransfers } from "../../../policy/velocity/asset-transfers.js";
import { executeSolanaSend, fillSolanaSend, validateSolanaSend, type SolanaSendRequest } from "../solana-send.js";
import { solSendTransactionV1 } from "./sol-send-transaction-v1.js";

const request = (params: {
  unsignedTransaction: string;
  signWiths: string[];
  caip2: string;
  sponsor?: boolean;
  recentBlockhash?: string;
}): SolanaSendRequest => ({
  ...params,
  signers: params.signWiths,
  signersField: "signWiths",
});

export const solSendTransaction = defineActivity({
  operation: "sol_send_transaction",
  type: "ACTIVITY_TYPE_SOL_SEND_TRANSACTION_V2",
  intentKey: "solSendTransactionIntentV2",
  resultKey: "solSendTransactionResultV2",
  result: Type.Object({ sendTransactionStatusId: Type.String() }),
  sdkMethod: "solSendTransaction",
  summary: "Sign (with one or more signers, in order) and send a Solana transaction on a configured cluster; blockhash filled",
  resource: "PRIVATE_KEY",
  action: "SIGN",
  policyTarget: { signer: "signWith", signs: "transaction" },
  assetTransfers: (params, parsed) => sentTransactionTransfers(params, parsed),
  earlierVersions: [solSendTransactionV1],
  parameters: Type.Object({
    unsignedTransaction: Type.String({ minLength: 2, description: "Hex of the serialized transaction, signature slots zeroed" }),
    signWiths: Type.Array(Type.String({ minLength: 1 }), {
      minItems: 1,
      maxItems: 16,
      description: "Signer addresses, in the transaction's order",
    }),
    sponsor: Type.Optional(Type.Boolean()),
    caip2: Type.String({ minLength: 1, description: "CAIP-2 id of the cluster (solana:<genesis hash>, solana:mainnet, solana:devnet)" }),
    recentBlockhash: Type.Optional(Type.String({ description: "Blockhash to use; omitted, the node's latest is filled in" })),
  }),
  async validate({ services, organization }, params) {
    await validateSolanaSend(services, organization.id, request(params));
  },
  fill: (services, params) => fillSolanaSend(services, params, request(params)),
  async execute(ctx, params) {
    return { sendTransactionStatusId: await executeSolanaSend(ctx, params, request(params)) };
  },
});
