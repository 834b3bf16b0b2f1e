import { Type } from "@sinclair/typebox";
import { defineActivity } from "../../../operations/activity-definition.js";
import { sentTransactionTransfers } from "../../../policy/velocity/asset-transfers.js";
import { Caip2, EvmAddress, Quantity, executeEvmSend, fillEvmSend, validateEvmSend } from "../evm-send.js";

/** ACTIVITY_TYPE_ETH_SEND_TRANSACTION: one call given inline (to/value/data); served at eth_send_transaction beside V2. */
export const ethSendTransactionV1 = defineActivity({
  operation: "eth_send_transaction",
  type: "ACTIVITY_TYPE_ETH_SEND_TRANSACTION",
  intentKey: "ethSendTransactionIntent",
  resultKey: "ethSendTransactionResult",
  result: Type.Object({ sendTransactionStatusId: Type.String() }),
  sdkMethod: "ethSendTransaction",
  summary: "Sign and send an EVM transaction (nonce, gas and fees filled when left out) on a configured chain",
  resource: "PRIVATE_KEY",
  action: "SIGN",
  policyTarget: { signer: "signWith", signs: "transaction" },
  assetTransfers: (params, parsed) => sentTransactionTransfers(params, parsed),
  parameters: Type.Object({
    from: EvmAddress("A wallet account or private key address to sign with"),
    sponsor: Type.Optional(Type.Boolean()),
    caip2: Caip2,
    to: EvmAddress("Recipient address as a hex string with 0x prefix"),
    value: Type.Optional(Quantity("Amount of native asset to send in wei")),
    data: Type.Optional(Type.String({ description: "Hex-encoded call data for contract interactions" })),
    nonce: Type.Optional(Quantity("Transaction nonce; omit to allocate")),
    gasLimit: Type.Optional(Quantity("Gas limit; omit to estimate")),
    maxFeePerGas: Type.Optional(Quantity("Maximum total fee per gas in wei; omit to estimate")),
    maxPriorityFeePerGas: Type.Optional(Quantity("Maximum priority fee per gas in wei; omit to estimate")),
    deadline: Type.Optional(Type.String()),
    gasStationNonce: Type.Optional(Type.String()),
  }),
  async validate({ services, organization }, params) {
    await validateEvmSend(services, organization.id, params, params, "to");
  },
  fill: (services, params) => fillEvmSend(services, params, params, params, "to"),
  async execute(ctx, params) {
    return { sendTransactionStatusId: await executeEvmSend(ctx, params, ctx.organization) };
  },
});
