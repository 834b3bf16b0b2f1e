import { Type } from "@sinclair/typebox";
import { defineActivity } from "../../../operations/activity-definition.js";
import { sentTransactionTransfers } from "../../../policy/velocity/asset-transfers.js";
import { executeSolanaSend, fillSolanaSend, validateSolanaSend, type SolanaSendRequest } from "../solana-send.js";

const request = (params: {
  unsignedTransaction: string;
  signWith: string;
  caip2: string;
  sponsor?: boolean;
  recentBlockhash?: string;
}): SolanaSendRequest => ({
  ...params,
  signers: [params.signWith],
  signersField: "signWith",
});

/** ACTIVITY_TYPE_SOL_SEND_TRANSACTION: one signer; served at sol_send_transaction beside V2. */
export const solSendTransactionV1 = defineActivity({
  operation: "sol_send_transaction",
  type: "ACTIVITY_TYPE_SOL_SEND_TRANSACTION",
  intentKey: "solSendTransactionIntent",
  resultKey: "solSendTransactionResult",
  result: Type.Object({ sendTransactionStatusId: Type.String() }),
  sdkMethod: "solSendTransaction",
  summary: "Sign and send a Solana transaction (blockhash filled when left out) on a configured cluster",
  resource: "PRIVATE_KEY",
  action: "SIGN",
  policyTarget: { signer: "signWith", signs: "transaction" },
  assetTransfers: (params, parsed) => sentTransactionTransfers(params, parsed),
  parameters: Type.Object({
    unsignedTransaction: Type.String({ minLength: 2, description: "Hex of the serialized transaction, signature slots zeroed" }),
    signWith: Type.String({ minLength: 1, description: "A wallet account or private key address to sign with" }),
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
